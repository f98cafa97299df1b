#include "decision/subject.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "crypto/jwt_compact.h"
#include "crypto/sha256.h"
#include "crypto/token.h"

namespace verdict {
namespace {

// The subject when `agent` (the view's) is live at `now`; otherwise why it may not act.
absl::StatusOr<SubjectResolution> LiveOrWhyNot(const Agent& agent, absl::Time now) {
  // Built where it is returned, so that nothing is moved again.
  absl::StatusOr<SubjectResolution> answer(absl::in_place);
  SubjectResolution& resolution = *answer;
  resolution.agent_id = agent.id;
  resolution.reason = LivenessOf(agent, now);
  switch (resolution.reason) {
    case ReasonCode::kAgentExpired:
      resolution.message =
          absl::StrCat("agent ", agent.id, " expired at ",
                       absl::FormatTime(absl::RFC3339_sec, agent.expires_at, absl::UTCTimeZone()));
      break;
    case ReasonCode::kAgentSuspended:
      resolution.message = absl::StrCat("agent ", agent.id, " is suspended");
      break;
    case ReasonCode::kAgentRevoked:
      resolution.message = absl::StrCat("agent ", agent.id, " is revoked");
      break;
    default:
      resolution.agent = &agent;
  }
  return answer;
}

absl::StatusOr<SubjectResolution> ResolveAgent(absl::string_view agent_id, PolicyView& view,
                                               absl::Time now) {
  absl::StatusOr<const Agent*> agent = view.FindAgentRef(agent_id);
  if (!agent.ok()) return agent.status();
  if (*agent == nullptr) {
    SubjectResolution resolution;
    resolution.reason = ReasonCode::kAgentNotFound;
    resolution.message = absl::StrCat("agent ", agent_id, " not found");
    return resolution;
  }
  return LiveOrWhyNot(**agent, now);
}

// A JWT access token: authentic (signature, claims, DPoP), not revoked, naming a live agent in
// "sub". Messages name the reason a token is refused, never the token.
absl::StatusOr<SubjectResolution> ResolveAccessToken(const Subject& subject, PolicyView& view,
                                                     absl::Time now,
                                                     AccessTokenAuthenticator* access_tokens) {
  SubjectResolution refused;
  refused.reason = ReasonCode::kTokenInvalid;
  if (absl::Status shape = CheckCompactJwsShape(subject.token); !shape.ok()) {
    refused.message = absl::StrCat("malformed token: ", shape.message());
    return refused;
  }
  if (access_tokens == nullptr) {
    refused.message = "JWT access tokens are not accepted: no issuer is configured";
    return refused;
  }
  absl::StatusOr<AccessTokenClaims> claims = access_tokens->Authenticate(subject, view, now);
  if (!claims.ok()) {
    if (!JwtErrorOf(claims.status()).has_value()) return claims.status();
    refused.message = absl::StrCat("access token refused: ", claims.status().message());
    return refused;
  }
  absl::StatusOr<bool> revoked = view.IsTokenIdRevoked(claims->jti);
  if (!revoked.ok()) return revoked.status();
  if (*revoked) {
    refused.message = absl::StrCat("access token ", claims->jti, " is revoked");
    return refused;
  }
  return ResolveAgent(claims->subject, view, now);
}

// An opaque agent token: well-shaped, and the current (or still graced) token of a live agent.
absl::StatusOr<SubjectResolution> ResolveAgentToken(absl::string_view token, PolicyView& view,
                                                    absl::Time now) {
  SubjectResolution resolution;
  absl::Status shape = CheckAgentTokenShape(token);
  if (!shape.ok()) {
    resolution.reason = ReasonCode::kTokenInvalid;
    resolution.message = absl::StrCat("malformed token: ", shape.message());
    return resolution;
  }
  absl::StatusOr<const Agent*> agent =
      view.FindAgentRefByTokenHash(Sha256Digest(token).bytes(), now);
  if (!agent.ok()) return agent.status();
  if (*agent == nullptr) {
    resolution.reason = ReasonCode::kTokenInvalid;
    resolution.message = "token is not recognised";
    return resolution;
  }
  return LiveOrWhyNot(**agent, now);
}

}  // namespace

absl::StatusOr<SubjectResolution> ResolveSubject(const Subject& subject, PolicyView& view,
                                                 absl::Time now,
                                                 AccessTokenAuthenticator* access_tokens) {
  if (!subject.agent_id.empty()) return ResolveAgent(subject.agent_id, view, now);
  if (LooksLikeCompactJws(subject.token)) {
    return ResolveAccessToken(subject, view, now, access_tokens);
  }
  return ResolveAgentToken(subject.token, view, now);
}

absl::StatusOr<SubjectResolution> ResolveToken(absl::string_view token, const DpopEvidence& dpop,
                                               PolicyView& view, absl::Time now,
                                               AccessTokenAuthenticator* access_tokens) {
  if (LooksLikeCompactJws(token)) {
    // The authenticator reads a whole subject: a copy, on a path that verifies a signature.
    Subject subject;
    subject.token = std::string(token);
    subject.dpop = dpop;
    return ResolveAccessToken(subject, view, now, access_tokens);
  }
  return ResolveAgentToken(token, view, now);
}

ReasonCode LivenessOf(const Agent& agent, absl::Time now) {
  switch (agent.status) {
    case AgentStatus::kActive:
      return now < agent.expires_at ? ReasonCode::kAllowed : ReasonCode::kAgentExpired;
    case AgentStatus::kSuspended:
      return ReasonCode::kAgentSuspended;
    case AgentStatus::kRevoked:
      return ReasonCode::kAgentRevoked;
  }
  return ReasonCode::kAllowed;
}

}  // namespace verdict
