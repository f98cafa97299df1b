#include "store/postgres_store.h"

#include <optional>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/ids.h"
#include "store/lookups.h"
#include "store/policy_encoding.h"

namespace verdict {
namespace {

constexpr int kMaxConnections = 256;

PostgresConnectionOptions ConnectionOptionsOf(const PostgresOptions& options) {
  return PostgresConnectionOptions{.lock_timeout = options.lock_timeout,
                                   .statement_timeout = options.statement_timeout,
                                   .connect_timeout = options.connect_timeout};
}

// The PolicyView lookups over the leased connection, for both kinds of transaction. A read
// snapshot's first lookup also sends its BEGIN: when the server had ended the pooled connection
// before, the lookup runs again, once, on a fresh connection (a write transaction's BEGIN was
// answered already: ConnectionPool::CheckoutInTransaction).
template <typename Base>
class PostgresPolicyView : public PolicyViewOn<Base> {
 public:
  PostgresPolicyView(ConnectionPool& pool, ConnectionPool::Lease lease)
      : pool_(pool), lease_(std::move(lease)) {}

 protected:
  Connection* connection() override { return lease_.has_connection() ? &*lease_ : nullptr; }
  bool LostBeforeAnswer() override { return lease_.LostWhileIdle(); }
  absl::Status Reconnect() override {
    lease_.Release();  // its slot, for the fresh connection
    absl::StatusOr<ConnectionPool::Lease> fresh = pool_.Checkout(ConnectionPool::Reuse::kFresh);
    if (!fresh.ok()) return fresh.status();
    (*fresh)->Begin(TransactionKind::kRead).IgnoreError();  // deferred: cannot fail
    lease_ = *std::move(fresh);
    return absl::OkStatus();
  }

 private:
  ConnectionPool& pool_;
  ConnectionPool::Lease lease_;
};

class PostgresReadSnapshot final : public PostgresPolicyView<ReadSnapshot> {
 public:
  using PostgresPolicyView::PostgresPolicyView;
  // A read-only transaction has nothing to keep: COMMIT just releases its snapshot.
  ~PostgresReadSnapshot() override {
    if (Connection* c = connection()) c->Commit().IgnoreError();
  }
};

using PostgresWriteTransaction = WriteTransactionOn<PostgresPolicyView<WriteTransaction>>;

}  // namespace

PostgresStore::PostgresStore(const LibPq& pq, std::string conninfo, PostgresOptions options)
    : DatabaseStore(pool_, prune_pool_, options.clock),
      options_(std::move(options)),
      pool_(PostgresSource(pq, conninfo, ConnectionOptionsOf(options_)),
            PostgresPoolOptions(ConnectionOptionsOf(options_), options_.connections)),
      prune_pool_(PostgresSource(pq, std::move(conninfo), ConnectionOptionsOf(options_)),
                  PostgresPoolOptions(ConnectionOptionsOf(options_), /*size=*/1)) {}

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(std::string conninfo,
                                                                   PostgresOptions options) {
  if (conninfo.empty()) {
    return absl::InvalidArgumentError("PostgreSQL store: the connection string is empty");
  }
  if (options.connections < 1 || options.connections > kMaxConnections) {
    return absl::InvalidArgumentError(absl::StrCat("PostgreSQL store: connections must be 1 to ",
                                                   kMaxConnections, ", not ", options.connections));
  }
  for (absl::Duration timeout :
       {options.lock_timeout, options.statement_timeout, options.connect_timeout}) {
    if (timeout < absl::Milliseconds(1)) {
      return absl::InvalidArgumentError("PostgreSQL store: timeouts must be at least 1 ms");
    }
  }
  if (!options.clock) return absl::InvalidArgumentError("PostgreSQL store: no clock");
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  const bool defer_open_errors = options.defer_open_errors;
  auto store = absl::WrapUnique(new PostgresStore(**pq, std::move(conninfo), std::move(options)));
  absl::Status available = store->CheckAvailable();
  if (!available.ok() && !defer_open_errors) return available;
  return store;
}

absl::StatusOr<std::unique_ptr<ReadSnapshot>> PostgresStore::BeginRead() {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.CheckoutInTransaction(TransactionKind::kRead);
  if (!lease.ok()) return lease.status();
  return std::make_unique<PostgresReadSnapshot>(pool_, *std::move(lease));
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> PostgresStore::BeginWrite() {
  absl::StatusOr<ConnectionPool::Lease> lease =
      pool_.CheckoutInTransaction(TransactionKind::kWrite);
  if (!lease.ok()) return lease.status();
  return std::make_unique<PostgresWriteTransaction>(pool_, *std::move(lease));
}

}  // namespace verdict
