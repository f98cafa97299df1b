#include "store/postgres_admin_credentials.h"

#include <utility>

#include "absl/memory/memory.h"
#include "store/postgres_statements.h"

namespace verdict {

PostgresAdminCredentials::PostgresAdminCredentials(const LibPq& pq, std::string conninfo,
                                                   PostgresConnectionOptions options)
    : pool_(pq, std::move(conninfo), options, /*size=*/1) {}

absl::StatusOr<std::unique_ptr<PostgresAdminCredentials>> PostgresAdminCredentials::Open(
    std::string conninfo, PostgresConnectionOptions options) {
  if (conninfo.empty()) {
    return absl::InvalidArgumentError(
        "PostgreSQL admin credential: the connection string is empty");
  }
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  return absl::WrapUnique(new PostgresAdminCredentials(**pq, std::move(conninfo), options));
}

absl::StatusOr<std::optional<std::string>> PostgresAdminCredentials::SecretHash() {
  absl::StatusOr<PostgresPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  absl::StatusOr<PgResult> result = (*lease)->Execute(PgStatement::kAdminSecretHash);
  if (!result.ok()) return result.status();
  if (result->size() == 0) return std::nullopt;
  return result->row(0).Text(0);
}

absl::StatusOr<bool> PostgresAdminCredentials::SetIfAbsent(absl::string_view secret_hash,
                                                           absl::Time now) {
  absl::StatusOr<PostgresPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  absl::StatusOr<PgResult> result =
      (*lease)->Execute(PgStatement::kSetAdminSecretHashIfAbsent,
                        PgParams().Text(secret_hash).Int64(absl::ToUnixMicros(now)));
  if (!result.ok()) return result.status();
  return result->changed_rows() == 1;
}

}  // namespace verdict
