// The admin credential on PostgreSQL (store/admin_credential_store.h): the SQLite store's
// admin_credentials table, shared by every sidecar on the database, so the credential the first
// sidecar sets is the one every sidecar checks.
//
//   absl::StatusOr<std::unique_ptr<PostgresAdminCredentials>> credentials =
//       PostgresAdminCredentials::Open("postgresql://verdict@db.internal/verdict");
//   absl::StatusOr<std::optional<std::string>> hash = (*credentials)->SecretHash();
#ifndef VERDICT_STORE_POSTGRES_ADMIN_CREDENTIALS_H_
#define VERDICT_STORE_POSTGRES_ADMIN_CREDENTIALS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/admin_credential_store.h"
#include "store/postgres_connection.h"
#include "store/postgres_pool.h"

namespace verdict {

class PostgresAdminCredentials final : public AdminCredentialStore {
 public:
  // Loads libpq (UNAVAILABLE without it); connects, and brings the schema up to date, on first
  // use and again after a connection fault.
  static absl::StatusOr<std::unique_ptr<PostgresAdminCredentials>> Open(
      std::string conninfo, PostgresConnectionOptions options = {});

  absl::StatusOr<std::optional<std::string>> SecretHash() override;
  absl::StatusOr<bool> SetIfAbsent(absl::string_view secret_hash, absl::Time now) override;

 private:
  PostgresAdminCredentials(const LibPq& pq, std::string conninfo,
                           PostgresConnectionOptions options);

  PostgresPool pool_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_ADMIN_CREDENTIALS_H_
