#include "server/admin_authentication.h"

#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

ABSL_FLAG(std::vector<std::string>, admin_peer_uids, {},
          "Local users who may call AdminService on its unix: socket without a secret, known by "
          "their uid (SO_PEERCRED), each as the principal it is mapped to: comma-separated "
          "UID=principal entries, e.g. 0=admin,1000=alice. Never applies on TCP. Unmapped users "
          "authenticate as before.");
ABSL_FLAG(absl::Duration, admin_session_ttl, absl::Hours(1),
          "How long an admin session (CreateSession, `verdict login`) lasts when its caller asks "
          "for no TTL, with its unit: 1h.");
ABSL_FLAG(absl::Duration, admin_session_max_ttl, absl::Hours(12),
          "The longest admin session a caller may ask for, with its unit (at most 168h).");

namespace verdict {
namespace {

constexpr absl::string_view kBearerScheme = "Bearer ";
constexpr size_t kMaxPrincipalLength = 128;

}  // namespace

absl::string_view BearerCredential(absl::string_view authorization) {
  if (authorization.size() <= kBearerScheme.size() ||
      !absl::StartsWithIgnoreCase(authorization, kBearerScheme)) {
    return "";
  }
  return absl::StripAsciiWhitespace(authorization.substr(kBearerScheme.size()));
}

absl::StatusOr<PeerUidPrincipals> ParsePeerUidPrincipals(const std::vector<std::string>& entries) {
  PeerUidPrincipals map;
  for (const std::string& raw : entries) {
    const absl::string_view entry = absl::StripAsciiWhitespace(raw);
    if (entry.empty()) continue;
    const size_t equals = entry.find('=');
    const auto bad = [&entry](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("--admin_peer_uids: \"", entry, "\": ", why, " (UID=principal)"));
    };
    if (equals == absl::string_view::npos) return bad("no '='");
    uint32_t uid = 0;
    if (!absl::SimpleAtoi(entry.substr(0, equals), &uid)) return bad("the uid is not a number");
    const absl::string_view principal = entry.substr(equals + 1);
    bool name_ok = !principal.empty() && principal.size() <= kMaxPrincipalLength;
    for (char c : principal) name_ok = name_ok && absl::ascii_isgraph(c);
    if (!name_ok) {
      return bad(absl::StrCat("the principal must be 1 to ", kMaxPrincipalLength,
                              " printable characters without spaces"));
    }
    if (!map.emplace(static_cast<uid_t>(uid), std::string(principal)).second) {
      return bad("this uid is mapped twice");
    }
  }
  return map;
}

absl::StatusOr<AdminAuthenticationOptions> AdminAuthenticationOptionsFromFlags(
    bool on_unix_socket) {
  AdminAuthenticationOptions options;
  options.sessions.default_ttl = absl::GetFlag(FLAGS_admin_session_ttl);
  options.sessions.max_ttl = absl::GetFlag(FLAGS_admin_session_max_ttl);
  if (absl::Status valid = CheckAdminSessionOptions(options.sessions); !valid.ok()) return valid;
  absl::StatusOr<PeerUidPrincipals> peer_uids =
      ParsePeerUidPrincipals(absl::GetFlag(FLAGS_admin_peer_uids));
  if (!peer_uids.ok()) return peer_uids.status();
  if (!peer_uids->empty() && !on_unix_socket) {
    return absl::InvalidArgumentError(
        "--admin_peer_uids: the admin listener is not a unix: socket (peer uids are never "
        "mapped on TCP)");
  }
  options.peer_uids = *std::move(peer_uids);
  return options;
}

absl::StatusOr<AdminActor> AdminAuthentication::Authenticate(absl::string_view caller,
                                                             absl::string_view authorization,
                                                             BySecret by_secret) {
  // "uid:N" only for a connection a UnixListener accepted (server/unix_socket.h): a TCP peer is
  // "ipv4:..." or "ipv6:...", whatever it sends.
  absl::string_view uid_text = caller;
  uint32_t uid = 0;
  if (!peer_uids_.empty() && absl::ConsumePrefix(&uid_text, "uid:") &&
      absl::SimpleAtoi(uid_text, &uid)) {
    if (auto it = peer_uids_.find(static_cast<uid_t>(uid)); it != peer_uids_.end()) {
      return AdminActor{.principal = it->second,
                        .method = AdminAuthMethod::kPeerUid,
                        .peer = std::string(caller)};
    }
  }
  const absl::string_view credential = BearerCredential(authorization);
  if (sessions_ != nullptr && IsSessionToken(credential)) {
    return sessions_->Authenticate(caller, credential);
  }
  return by_secret();
}

}  // namespace verdict
