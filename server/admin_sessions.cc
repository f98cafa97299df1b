#include "server/admin_sessions.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "server/admin_auth.h"

namespace verdict {
namespace {

constexpr absl::string_view kSessionIdPrefix = "ses_";
constexpr absl::Duration kLongestTtl = absl::Hours(24 * 7);
constexpr int kMostSessionsPerPrincipal = 10'000;
constexpr size_t kMaxPrincipalLength = 128;

// The one answer for every token that does not authenticate, whatever the reason.
absl::Status SessionRefused() {
  return absl::UnauthenticatedError(
      "invalid, expired or revoked admin session: log in again (verdict login)");
}

bool IsBase64UrlCharacter(char c) { return absl::ascii_isalnum(c) || c == '-' || c == '_'; }

bool HasSessionTokenShape(absl::string_view token) {
  if (token.size() != kSessionTokenLength || !absl::StartsWith(token, kSessionTokenPrefix)) {
    return false;
  }
  for (char c : token.substr(kSessionTokenPrefix.size())) {
    if (!IsBase64UrlCharacter(c)) return false;
  }
  return true;
}

absl::Status CheckSessionId(absl::string_view id) {
  bool ok = absl::StartsWith(id, kSessionIdPrefix) && id.size() > kSessionIdPrefix.size() &&
            id.size() <= kSessionIdPrefix.size() + 64;
  for (char c : id) ok = ok && IsBase64UrlCharacter(c);
  if (!ok) {
    return absl::InvalidArgumentError(
        "session_id: expected ses_ and up to 64 characters of [A-Za-z0-9_-]");
  }
  return absl::OkStatus();
}

absl::Status CheckPrincipalName(absl::string_view principal) {
  bool ok = !principal.empty() && principal.size() <= kMaxPrincipalLength;
  for (char c : principal) ok = ok && absl::ascii_isgraph(c);
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat("principal: expected 1 to ", kMaxPrincipalLength,
                                                   " printable characters, no spaces"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAdminSessionOptions(const AdminSessionOptions& options) {
  if (options.max_ttl <= absl::ZeroDuration() || options.max_ttl > kLongestTtl) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_session_max_ttl: must be more than 0 "
                     "and at most 168h, got ",
                     absl::FormatDuration(options.max_ttl)));
  }
  if (options.default_ttl <= absl::ZeroDuration() || options.default_ttl > options.max_ttl) {
    return absl::InvalidArgumentError(
        absl::StrCat("--admin_session_ttl: must be more than 0 and at most "
                     "--admin_session_max_ttl (",
                     absl::FormatDuration(options.max_ttl), "), got ",
                     absl::FormatDuration(options.default_ttl)));
  }
  if (options.max_per_principal < 1 || options.max_per_principal > kMostSessionsPerPrincipal) {
    return absl::InvalidArgumentError(absl::StrCat("sessions per principal: must be 1..",
                                                   kMostSessionsPerPrincipal, ", got ",
                                                   options.max_per_principal));
  }
  return absl::OkStatus();
}

std::string RedactSessionTokens(absl::string_view text) {
  std::string redacted;
  size_t kept = 0;
  for (size_t at = text.find(kSessionTokenPrefix); at != absl::string_view::npos;
       at = text.find(kSessionTokenPrefix, at + 1)) {
    if (at < kept) continue;
    size_t end = at + kSessionTokenPrefix.size();
    while (end < text.size() && IsBase64UrlCharacter(text[end])) ++end;
    if (end == at + kSessionTokenPrefix.size()) continue;
    absl::StrAppend(&redacted, text.substr(kept, at - kept), "[REDACTED]");
    kept = end;
  }
  if (kept == 0) return std::string(text);
  absl::StrAppend(&redacted, text.substr(kept));
  return redacted;
}

bool IsSessionToken(absl::string_view credential) {
  return absl::StartsWith(credential, kSessionTokenPrefix);
}

AdminSessionManager::AdminSessionManager(AdminSessionStore& store, Clock clock,
                                         AdminSessionOptions options)
    : store_(store), clock_(clock), options_(options), backoff_(clock, options.backoff) {}

absl::StatusOr<NewAdminSession> AdminSessionManager::Create(const AdminActor& creator,
                                                            absl::Duration ttl) {
  if (creator.method == AdminAuthMethod::kSession) {
    return absl::PermissionDeniedError(
        "a session cannot create another session: log in with the principal's secret");
  }
  if (ttl < absl::ZeroDuration() || ttl > options_.max_ttl) {
    return absl::InvalidArgumentError(
        absl::StrCat("ttl: must be 0 (the default, ", absl::FormatDuration(options_.default_ttl),
                     ") to ", absl::FormatDuration(options_.max_ttl)));
  }
  if (ttl == absl::ZeroDuration()) ttl = options_.default_ttl;
  // In the store's precision (microseconds), so that what is kept and what is answered agree.
  const absl::Time now = absl::FromUnixMicros(absl::ToUnixMicros(clock_()));
  NewAdminSession made{
      .session = {.id = absl::StrCat(kSessionIdPrefix, HexEncode(RandomBytes(8))),
                  .principal = creator.principal,
                  .created_at = now,
                  .expires_at = now + absl::Trunc(ttl, absl::Microseconds(1))},
      .token = absl::StrCat(kSessionTokenPrefix, Base64UrlEncode(RandomBytes(32))),
  };
  absl::StatusOr<int64_t> evicted =
      store_.Insert(made.session, Sha256(made.token), options_.max_per_principal);
  if (!evicted.ok()) return evicted.status();
  return made;
}

absl::StatusOr<AdminActor> AdminSessionManager::Authenticate(absl::string_view peer,
                                                             absl::string_view token) {
  const std::string host = PeerHost(peer);
  if (absl::Status admitted = backoff_.Admit(host); !admitted.ok()) return admitted;
  if (!HasSessionTokenShape(token)) {
    backoff_.RecordFailure(host);
    return SessionRefused();
  }
  absl::StatusOr<std::optional<AdminSession>> found = store_.FindByTokenHash(Sha256(token));
  if (!found.ok()) return found.status();
  if (!found->has_value() || clock_() >= (*found)->expires_at) {
    backoff_.RecordFailure(host);
    return SessionRefused();
  }
  backoff_.RecordSuccess(host);
  return AdminActor{.principal = (*found)->principal,
                    .method = AdminAuthMethod::kSession,
                    .peer = std::string(peer)};
}

absl::StatusOr<int64_t> AdminSessionManager::Revoke(const AdminActor& caller,
                                                    absl::string_view presented_token,
                                                    absl::string_view session_id,
                                                    absl::string_view principal) {
  const bool any_principal = caller.principal == kAdminPrincipal;
  if (!session_id.empty() && !principal.empty()) {
    return absl::InvalidArgumentError("name a session_id or a principal, not both");
  }
  if (!session_id.empty()) {
    if (absl::Status valid = CheckSessionId(session_id); !valid.ok()) return valid;
    absl::StatusOr<bool> deleted = store_.Delete(session_id, any_principal ? "" : caller.principal);
    if (!deleted.ok()) return deleted.status();
    return *deleted ? 1 : 0;
  }
  if (!principal.empty()) {
    if (absl::Status valid = CheckPrincipalName(principal); !valid.ok()) return valid;
    if (principal != caller.principal && !any_principal) {
      return absl::PermissionDeniedError(
          "only the principal admin may revoke another principal's sessions");
    }
    return store_.DeleteAllOf(principal);
  }
  if (caller.method != AdminAuthMethod::kSession) {
    return absl::InvalidArgumentError(
        "name a session_id or a principal: this call is not made with a session");
  }
  absl::StatusOr<std::optional<AdminSession>> current =
      store_.FindByTokenHash(Sha256(presented_token));
  if (!current.ok()) return current.status();
  if (!current->has_value()) return 0;  // revoked meanwhile
  absl::StatusOr<bool> deleted = store_.Delete((*current)->id, (*current)->principal);
  if (!deleted.ok()) return deleted.status();
  return *deleted ? 1 : 0;
}

}  // namespace verdict
