// The admin secret as operators keep it: a file holding the secret on one line. verdictd reads
// it to set the admin credential (--admin_secret_file); the `verdict` CLI reads it to present
// the credential. The secret never travels on a command line, where `ps` would show it.
//
//   absl::StatusOr<std::string> secret = ReadAdminSecretFile("/etc/verdict/admin-secret");
#ifndef VERDICT_SERVER_ADMIN_SECRET_H_
#define VERDICT_SERVER_ADMIN_SECRET_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

// Shorter secrets are refused: the credential guards the whole policy.
inline constexpr size_t kMinAdminSecretLength = 16;

// The file's contents without surrounding white space (the trailing newline editors add).
// NOT_FOUND when it cannot be read; INVALID_ARGUMENT when the secret is too short.
absl::StatusOr<std::string> ReadAdminSecretFile(const std::string& path);

// INVALID_ARGUMENT unless `secret` is long enough and has no white space or control characters
// inside it.
absl::Status CheckAdminSecret(absl::string_view secret);

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_SECRET_H_
