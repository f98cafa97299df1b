#include "store/admin_credentials.h"

#include <utility>

namespace verdict {

AdminCredentials::AdminCredentials(std::string path, ConnectionOptions options)
    : AdminCredentials(std::make_unique<ConnectionPool>(SqliteSource(std::move(path), options),
                                                        PoolOptions{.size = 1})) {}

absl::StatusOr<std::optional<std::string>> AdminCredentials::SecretHash() {
  std::optional<std::string> hash;
  absl::Status status = database_->InTransaction(TransactionKind::kRead, [&](Connection& c) {
    absl::StatusOr<ResultRows> rows = c.Execute(Statement::kAdminSecretHash);
    if (rows.ok() && rows->size() > 0) hash = std::string(rows->row(0).Text(0));
    return rows.status();
  });
  if (!status.ok()) return status;
  return hash;
}

absl::StatusOr<bool> AdminCredentials::SetIfAbsent(absl::string_view secret_hash, absl::Time now) {
  bool stored = false;
  absl::Status status =
      database_->InTransaction(TransactionKind::kLockFreeWrite, [&](Connection& c) {
        absl::StatusOr<ResultRows> rows =
            c.Execute(Statement::kSetAdminSecretHashIfAbsent,
                      Params().Text(secret_hash).Int64(absl::ToUnixMicros(now)));
        if (rows.ok()) stored = rows->changed_rows() == 1;
        return rows.status();
      });
  if (!status.ok()) return status;
  return stored;
}

}  // namespace verdict
