#include "store/admin_credentials.h"

#include <SQLiteCpp/SQLiteCpp.h>

#include <utility>

namespace verdict {

AdminCredentials::AdminCredentials(std::string path, ConnectionOptions options)
    : pool_(std::move(path), options, /*size=*/1) {}

absl::StatusOr<std::optional<std::string>> AdminCredentials::SecretHash() {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  SqliteConnection& connection = **lease;
  return CatchSqlite(connection, [&]() -> absl::StatusOr<std::optional<std::string>> {
    SQLite::Statement select(connection.database(),
                             "SELECT secret_hash FROM admin_credentials WHERE id = 1");
    if (!select.executeStep()) return std::nullopt;
    return select.getColumn(0).getString();
  });
}

absl::StatusOr<bool> AdminCredentials::SetIfAbsent(absl::string_view secret_hash, absl::Time now) {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  SqliteConnection& connection = **lease;
  return CatchSqlite(connection, [&]() -> absl::StatusOr<bool> {
    SQLite::Statement insert(connection.database(),
                             "INSERT INTO admin_credentials (id, secret_hash, created_at) "
                             "VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING");
    insert.bind(1, std::string(secret_hash));
    insert.bind(2, absl::ToUnixMicros(now));
    return insert.exec() == 1;
  });
}

}  // namespace verdict
