// Where the admin credential lives: the Argon2id hash (crypto/secret_hash.h) of the bearer secret
// that every AdminService call must present. There is at most one; it is set once, when verdictd
// first starts with an admin secret, and read fresh on every check, so a credential stored
// through one sidecar holds for every sidecar on the same database.
//
// Implementation: AdminCredentials (store/admin_credentials.h), on either database;
// OpenAdminCredentialStore (store/open_store.h) opens it from --db.
//
//   absl::StatusOr<bool> stored = credentials.SetIfAbsent(*HashSecret(secret), absl::Now());
//   absl::StatusOr<std::optional<std::string>> hash = credentials.SecretHash();
#ifndef VERDICT_STORE_ADMIN_CREDENTIAL_STORE_H_
#define VERDICT_STORE_ADMIN_CREDENTIAL_STORE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace verdict {

class AdminCredentialStore {
 public:
  virtual ~AdminCredentialStore() = default;

  // The stored hash (PHC encoded), or nullopt when no credential has been set. UNAVAILABLE when
  // the database cannot be used.
  virtual absl::StatusOr<std::optional<std::string>> SecretHash() = 0;

  // Stores `secret_hash` when no credential exists. True when it was stored; false when one
  // existed already, which is then left as it is.
  virtual absl::StatusOr<bool> SetIfAbsent(absl::string_view secret_hash, absl::Time now) = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_CREDENTIAL_STORE_H_
