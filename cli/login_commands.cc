// `verdict login` and `verdict logout` (cli/commands.h): an admin session kept in a 0600 file
// (cli/session_file.h), so that later commands spend no Argon2id check of the secret.
#include <termios.h>
#include <unistd.h>

#include <iostream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/commands.h"
#include "cli/session_file.h"
#include "server/admin_secret.h"

namespace verdict {
namespace cli {
namespace {

// One line of standard input; on a terminal, asked for on stderr and not echoed.
std::string ReadSecretLine(Session& session) {
  const bool terminal = &session.in() == &std::cin && isatty(STDIN_FILENO);
  termios saved{};
  if (terminal) {
    session.err() << "admin secret: " << std::flush;
    if (tcgetattr(STDIN_FILENO, &saved) == 0) {
      termios quiet = saved;
      quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
      tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    }
  }
  std::string line;
  std::getline(session.in(), line);
  if (terminal) {
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    session.err() << "\n";
  }
  return std::string(absl::StripAsciiWhitespace(line));
}

}  // namespace

int Login(Session& session) {
  std::string secret;
  if (int code = session.GivenAdminSecret(&secret); code != kExitOk) return code;
  if (secret.empty()) secret = ReadSecretLine(session);
  if (secret.empty()) {
    return session.UsageError(
        absl::StrCat("no admin secret: give it on standard input, with "
                     "--admin_secret_file=PATH or in $",
                     kAdminSecretEnv));
  }
  if (absl::Status checked = CheckAdminSecret(secret); !checked.ok()) {
    return session.UsageError(checked.message());
  }
  std::string path;
  if (int code = session.SessionPath(&path); code != kExitOk) return code;
  v1::CreateSessionRequest request;
  if (session.options().Has("ttl")) {
    absl::Duration ttl;
    if (!absl::ParseDuration(session.options().Get("ttl"), &ttl) || ttl <= absl::ZeroDuration() ||
        ttl == absl::InfiniteDuration()) {
      return session.UsageError(absl::StrCat("--ttl: \"", session.options().Get("ttl"),
                                             "\" is not a positive duration such as 8h"));
    }
    request.mutable_ttl()->set_seconds(absl::ToInt64Seconds(ttl));
  }
  const std::string address = session.AdminAddress();
  v1::CreateSessionResponse response;
  if (int code = session.CallAdminAs(absl::StrCat("Bearer ", secret), address,
                                     &AdminStub::CreateSession, request, &response);
      code != kExitOk) {
    return code;
  }
  const StoredSession stored{.admin_addr = address,
                             .token = response.token(),
                             .session_id = response.session_id(),
                             .principal = response.principal(),
                             .expires_at = absl::FromUnixSeconds(response.expires_at().seconds())};
  if (absl::Status written = WriteSessionFile(path, stored); !written.ok()) {
    // A session nobody keeps is ended at once rather than left to its expiry.
    v1::RevokeSessionRequest revoke;
    v1::RevokeSessionResponse revoked;
    session.CallAdminAs(absl::StrCat("Bearer ", response.token()), address,
                        &AdminStub::RevokeSession, revoke, &revoked);
    return session.UsageError(absl::StrCat("cannot keep the session: ", written.message()));
  }
  response.clear_token();  // kept in the file, shown nowhere
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
  } else {
    session.out() << "logged in to " << address << " as " << response.principal() << " until "
                  << absl::FormatTime(absl::RFC3339_sec, stored.expires_at, absl::UTCTimeZone())
                  << " (" << response.session_id() << ", kept in " << path << ")\n";
  }
  return kExitOk;
}

int Logout(Session& session) {
  std::string path;
  if (int code = session.SessionPath(&path); code != kExitOk) return code;
  absl::StatusOr<std::optional<StoredSession>> stored = ReadSessionFile(path);
  if (!stored.ok()) return session.UsageError(stored.status().message());
  if (!stored->has_value()) {
    session.Note("verdict: not logged in");
    return kExitOk;
  }
  int code = kExitOk;
  v1::RevokeSessionResponse response;
  if ((*stored)->expires_at > absl::Now()) {  // an expired one has nothing left to end
    code = session.CallAdminAs(absl::StrCat("Bearer ", (*stored)->token), (*stored)->admin_addr,
                               &AdminStub::RevokeSession, v1::RevokeSessionRequest(), &response);
  }
  // The file goes whatever the server said: this user asked to hold no session any more.
  if (absl::Status deleted = DeleteSessionFile(path); !deleted.ok()) {
    return session.UsageError(deleted.message());
  }
  if (code == kExitOk) {
    session.PrintDone(response, "logged out of", (*stored)->admin_addr);
  }
  return code;
}

}  // namespace cli
}  // namespace verdict
