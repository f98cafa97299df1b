// The admin credential on SQLite (store/admin_credential_store.h says what it is).
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
#include "store/admin_credential_store.h"
#include "store/connection_pool.h"

namespace verdict {

class AdminCredentials final : public AdminCredentialStore {
 public:
  // Connects on first use, creating and migrating the database when needed.
  explicit AdminCredentials(std::string path, ConnectionOptions options = {});

  absl::StatusOr<std::optional<std::string>> SecretHash() override;
  absl::StatusOr<bool> SetIfAbsent(absl::string_view secret_hash, absl::Time now) override;

 private:
  ConnectionPool pool_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_CREDENTIALS_H_
