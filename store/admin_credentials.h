// The admin credential: the Argon2id hash (crypto/secret_hash.h) of the bearer secret that
// every AdminService call must present. There is at most one; it is set once, when verdictd
// first starts with an admin secret, and read fresh on every check.
//
//   AdminCredentials credentials(db_path);
//   absl::StatusOr<bool> stored = credentials.SetIfAbsent(*HashSecret(secret), absl::Now());
//   absl::StatusOr<std::optional<std::string>> hash = credentials.SecretHash();
#ifndef VERDICT_STORE_ADMIN_CREDENTIALS_H_
#define VERDICT_STORE_ADMIN_CREDENTIALS_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/connection_pool.h"

namespace verdict {

class AdminCredentials {
 public:
  // Connects on first use, creating and migrating the database when needed.
  explicit AdminCredentials(std::string path, ConnectionOptions options = {});

  // The stored hash (PHC encoded), or nullopt when no credential has been set.
  absl::StatusOr<std::optional<std::string>> SecretHash();

  // Stores `secret_hash` when no credential exists. True when it was stored; false when one
  // existed already, which is then left as it is.
  absl::StatusOr<bool> SetIfAbsent(absl::string_view secret_hash, absl::Time now);

 private:
  ConnectionPool pool_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_CREDENTIALS_H_
