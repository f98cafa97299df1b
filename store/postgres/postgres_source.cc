#include "store/postgres/postgres_source.h"

#include <utility>

#include "store/postgres/postgres_schema.h"

namespace verdict {
namespace {

class PostgresConnectionSource final : public ConnectionSource {
 public:
  PostgresConnectionSource(const LibPq& pq, std::string conninfo, PostgresConnectionOptions options)
      : pq_(pq), conninfo_(std::move(conninfo)), options_(options) {}

  absl::StatusOr<Opened> Open(const std::function<bool()>& given_up) override {
    absl::StatusOr<std::unique_ptr<PostgresConnection>> opened =
        PostgresConnection::Open(pq_, conninfo_, options_, given_up);
    if (!opened.ok()) return opened.status();
    if (absl::Status migrated = MigratePostgresSchema(**opened); !migrated.ok()) return migrated;
    (*opened)->StartLease();
    return Opened{*std::move(opened), 0};
  }

  // An idle connection the server has ended since is dropped, not left to fail the call.
  absl::StatusOr<std::optional<uint64_t>> Reuse(Connection& idle, uint64_t epoch) override {
    PostgresConnection& connection = static_cast<PostgresConnection&>(idle);
    if (!connection.StillUsable()) return std::nullopt;
    connection.StartLease();
    return epoch;
  }

 private:
  const LibPq& pq_;
  const std::string conninfo_;
  const PostgresConnectionOptions options_;
};

}  // namespace

std::unique_ptr<ConnectionSource> PostgresSource(const LibPq& pq, std::string conninfo,
                                                 PostgresConnectionOptions options) {
  return std::make_unique<PostgresConnectionSource>(pq, std::move(conninfo), options);
}

PoolOptions PostgresPoolOptions(const PostgresConnectionOptions& options, int size) {
  return PoolOptions{.size = size, .wait_limit = options.statement_timeout, .breakable = true};
}

}  // namespace verdict
