// The admin principals (store/admin_credential_store.h says what they are) on either database.
//
//   AdminCredentials credentials(db_path);   // SQLite; OpenAdminCredentialStore for any
//   absl::StatusOr<bool> stored = credentials.SetIfAbsent(*HashSecret(secret), absl::Now());
//   absl::StatusOr<std::optional<StoredAdminPrincipal>> p = credentials.FindPrincipal("admin");
#ifndef VERDICT_STORE_ADMIN_CREDENTIALS_H_
#define VERDICT_STORE_ADMIN_CREDENTIALS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/admin_credential_store.h"
#include "store/connection.h"
#include "store/sqlite/sqlite_source.h"

namespace verdict {

// AdminCredentialStore::CreatePrincipal and ChangePrincipal inside a transaction the caller
// holds on `connection`: the admin plane's principal writes (app/admin_calls.h) and
// AdminCredentials' share them.
absl::Status CreatePrincipalOn(Connection& connection, const StoredAdminPrincipal& principal);
absl::StatusOr<StoredAdminPrincipal> ChangePrincipalOn(
    Connection& connection, absl::string_view name,
    const std::function<absl::Status(StoredAdminPrincipal&)>& change, absl::Time now);

class AdminCredentials final : public AdminCredentialStore {
 public:
  // The principals in `database`, whose connections connect (and migrate) on first use.
  explicit AdminCredentials(std::unique_ptr<Database> database) : database_(std::move(database)) {}
  // The principals in the SQLite file at `path`, with a connection of its own.
  explicit AdminCredentials(std::string path, ConnectionOptions options = {});

  absl::StatusOr<std::optional<StoredAdminPrincipal>> FindPrincipal(
      absl::string_view name) override;
  absl::StatusOr<std::vector<StoredAdminPrincipal>> ListPrincipals() override;
  absl::StatusOr<bool> SetIfAbsent(absl::string_view secret_hash, absl::Time now) override;
  absl::Status CreatePrincipal(const StoredAdminPrincipal& principal) override;
  absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change,
      absl::Time now) override;

 private:
  const std::unique_ptr<Database> database_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_CREDENTIALS_H_
