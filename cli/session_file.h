// Where `verdict login` keeps its admin session, like `gh auth login`: one file,
// $XDG_CONFIG_HOME/verdict/session (else ~/.config/verdict/session), readable by its owner only
// (0600), holding the admin address the session is for, its token, id, principal and expiry.
// Later commands to that address use it when no secret is given; `verdict logout` revokes it and
// deletes the file.
//
// The directory is made 0700 when missing. A directory verdict did not make is used only when it
// belongs to this user and no one else may read, write or enter it: a session token is a
// credential.
//
//   absl::StatusOr<std::string> path = SessionFilePath(env.getenv);
//   absl::Status written = WriteSessionFile(*path, stored);
//   absl::StatusOr<std::optional<StoredSession>> read = ReadSessionFile(*path);
#ifndef VERDICT_CLI_SESSION_FILE_H_
#define VERDICT_CLI_SESSION_FILE_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace verdict {
namespace cli {

struct StoredSession {
  std::string admin_addr;  // what the session is for
  std::string token;
  std::string session_id;
  std::string principal;
  absl::Time expires_at;
};

// The session file's path, from XDG_CONFIG_HOME or HOME; FAILED_PRECONDITION when neither is set.
absl::StatusOr<std::string> SessionFilePath(
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

// Writes `session` to `path` (0600, replacing any file there, never following a link), making its
// directory (0700) and that directory's parent when missing. FAILED_PRECONDITION naming the
// directory when it is not this user's or others may use it.
absl::Status WriteSessionFile(const std::string& path, const StoredSession& session);

// The session at `path`, or nullopt when there is no file. FAILED_PRECONDITION when the file is
// not this user's, others may read it, or it cannot be read as a session file.
absl::StatusOr<std::optional<StoredSession>> ReadSessionFile(const std::string& path);

// Deletes the file; OK when there is none.
absl::Status DeleteSessionFile(const std::string& path);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_SESSION_FILE_H_
