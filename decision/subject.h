// Who a call's subject is (design section 2.1): an agent id, an opaque agent token or a JWT
// access token, resolved to a live agent or to the reason it may not act. Decide
// (decision/engine.h) and ValidateToken both start here.
//
//   absl::StatusOr<SubjectResolution> who = ResolveSubject(request.subject, view, now);
//   if (who.ok() && !who->agent) ...  // refused: who->reason, who->message
#ifndef VERDICT_DECISION_SUBJECT_H_
#define VERDICT_DECISION_SUBJECT_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/access_token_authenticator.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {

// kAllowed when `agent` may act at `now` (active and unexpired); otherwise why not
// (AGENT_SUSPENDED, AGENT_REVOKED, AGENT_EXPIRED). A delegator on a chain must be live too.
ReasonCode LivenessOf(const Agent& agent, absl::Time now);

// Who a subject is (a token when agent_id is empty, checked for shape before any lookup): the
// agent when it exists and is live (active, unexpired) at `now`; otherwise the reason
// (TOKEN_INVALID, AGENT_NOT_FOUND, AGENT_SUSPENDED, AGENT_REVOKED, AGENT_EXPIRED) and a message.
// A JWT access token is authenticated by `access_tokens`, its "jti" must not be revoked (a fresh
// read), and its "sub" names the agent. Decide and ValidateToken both start here.
struct SubjectResolution {
  // Set only when live: the agent as the view read it, valid as long as that view.
  const Agent* agent = nullptr;
  // The agent the subject names, when it exists (live or not): the view's, as `agent`.
  absl::string_view agent_id;
  ReasonCode reason = ReasonCode::kAllowed;
  std::string message;
};
absl::StatusOr<SubjectResolution> ResolveSubject(const Subject& subject, PolicyView& view,
                                                 absl::Time now,
                                                 AccessTokenAuthenticator* access_tokens = nullptr);

// The same for a subject named by a token alone (ValidateToken's), without copying the token.
absl::StatusOr<SubjectResolution> ResolveToken(absl::string_view token, const DpopEvidence& dpop,
                                               PolicyView& view, absl::Time now,
                                               AccessTokenAuthenticator* access_tokens = nullptr);

}  // namespace verdict

#endif  // VERDICT_DECISION_SUBJECT_H_
