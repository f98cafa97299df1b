#include "store/postgres_store.h"

#include <optional>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/decision_record.h"
#include "store/ids.h"
#include "store/lookups.h"
#include "store/policy_encoding.h"
#include "store/row_readers.h"

namespace verdict {
namespace {

PostgresConnectionOptions ConnectionOptionsOf(const PostgresOptions& options) {
  return PostgresConnectionOptions{.lock_timeout = options.lock_timeout,
                                   .statement_timeout = options.statement_timeout,
                                   .connect_timeout = options.connect_timeout};
}

// The PolicyView lookups over the leased connection, for both kinds of transaction. A read
// snapshot's first lookup also opens its transaction on the server: when the server had ended
// the pooled connection before, the lookup runs again, once, on a fresh connection (a write
// transaction's BEGIN was answered already: ConnectionPool::CheckoutInTransaction).
//
// A decision record is read with one prepared statement, as SQLite reads it: a direct decision is
// one statement on the server and one round trip, each hop of a delegation chain one more. The
// rows are decoded into this view's own workspace, which lives as long as the transaction.
template <typename Base>
class PostgresPolicyView : public PolicyViewOn<Base> {
 public:
  PostgresPolicyView(ConnectionPool& pool, ConnectionPool::Lease lease)
      : pool_(&pool), lease_(std::move(lease)) {}

 protected:
  Connection* connection() override { return lease_.has_connection() ? &*lease_ : nullptr; }
  bool LostBeforeAnswer() override { return lease_.LostWhileIdle(); }
  absl::Status Reconnect() override {
    lease_.Release();  // its slot, for the fresh connection
    absl::StatusOr<ConnectionPool::Lease> fresh = pool_->Checkout(ConnectionPool::Reuse::kFresh);
    if (!fresh.ok()) return fresh.status();
    (*fresh)->Begin(TransactionKind::kRead).IgnoreError();  // sends nothing: cannot fail
    lease_ = *std::move(fresh);
    return absl::OkStatus();
  }

  DecodedRecords& records() override { return records_; }
  absl::StatusOr<bool> ReadRecord(absl::string_view agent_id, DecisionRecord& record) override {
    return this->Lookup([&](Connection& c) {
      return ReadFirstRecord(c.Execute(Statement::kFindDecisionRecord, Params().Text(agent_id)),
                             record);
    });
  }
  // Asked for the previous token only when no current token matches: one unique-index search
  // each.
  absl::StatusOr<bool> ReadRecordByTokenHash(absl::string_view token_sha256, absl::Time now,
                                             DecisionRecord& record) override {
    return this->Lookup([&](Connection& c) -> absl::StatusOr<bool> {
      absl::StatusOr<bool> current = ReadFirstRecord(
          c.Execute(Statement::kFindDecisionRecordByTokenHash, Params().Bytes(token_sha256)),
          record);
      if (!current.ok() || *current) return current;
      return ReadFirstRecord(c.Execute(Statement::kFindDecisionRecordByPreviousTokenHash,
                                       Params().Bytes(token_sha256).Time(now)),
                             record);
    });
  }

  ConnectionPool* pool_;
  ConnectionPool::Lease lease_;

 private:
  // The first row's columns into `record`; false when the statement found no row.
  static absl::StatusOr<bool> ReadFirstRecord(absl::StatusOr<ResultRows> rows,
                                              DecisionRecord& record) {
    if (!rows.ok()) return rows.status();
    if (rows->size() == 0) return false;
    const ResultRow row = rows->row(0);
    record = DecisionRecord{row.Text(0), row.Text(1), row.Text(2)};
    return true;
  }

  DecodedRecords records_;
};

// A read snapshot on the primary or, with --db_read, on a standby. A lookup that fails on a
// standby drops the standby from reads at once; when the standby had answered nothing in this
// snapshot yet, the lookup runs on the primary instead (a snapshot of its own, never a mix of
// the two); otherwise the call fails, UNAVAILABLE, which denies.
class PostgresReadSnapshot final : public PostgresPolicyView<ReadSnapshot> {
 public:
  PostgresReadSnapshot(ConnectionPool& pool, ConnectionPool::Lease lease,
                       ReadEndpoints* endpoints = nullptr, int standby = -1,
                       ConnectionPool* primary = nullptr, ReadRouteCounters* counters = nullptr)
      : PostgresPolicyView(pool, std::move(lease)),
        endpoints_(endpoints),
        standby_(standby),
        primary_(primary),
        counters_(counters) {}
  // A read-only transaction has nothing to keep: COMMIT just releases its snapshot.
  ~PostgresReadSnapshot() override {
    if (Connection* c = connection()) c->Commit().IgnoreError();
  }

 protected:
  bool LostBeforeAnswer() override {
    if (standby_ < 0) return PostgresPolicyView::LostBeforeAnswer();
    const bool answered =
        lease_.has_connection() && lease_.As<PostgresConnection>().AnsweredOnLease();
    endpoints_->Drop(standby_, answered ? "a lookup failed mid-call" : "a lookup failed");
    return !answered;
  }
  absl::Status Reconnect() override {
    if (standby_ < 0) return PostgresPolicyView::Reconnect();
    standby_ = -1;
    if (counters_ != nullptr) counters_->standby_failures.fetch_add(1, std::memory_order_relaxed);
    lease_.Release();
    pool_ = primary_;
    absl::StatusOr<ConnectionPool::Lease> lease =
        primary_->CheckoutInTransaction(TransactionKind::kRead);
    if (!lease.ok()) return lease.status();
    lease_ = *std::move(lease);
    return absl::OkStatus();
  }

 private:
  ReadEndpoints* endpoints_;
  int standby_;  // the endpoint read, or -1 for the primary
  ConnectionPool* primary_;
  ReadRouteCounters* counters_;
};

using PostgresWriteTransaction = WriteTransactionOn<PostgresPolicyView<WriteTransaction>>;

}  // namespace

PostgresStore::PostgresStore(const LibPq& pq, std::string conninfo, PostgresOptions options)
    : DatabaseStore([&] { return PostgresSource(pq, conninfo, ConnectionOptionsOf(options)); },
                    PostgresPoolOptions(ConnectionOptionsOf(options), options.connections),
                    PostgresPoolOptions(ConnectionOptionsOf(options), /*size=*/1), options.clock),
      options_(std::move(options)) {
  if (options_.read_conninfos.empty()) return;
  ReadEndpoints::Options endpoints;
  endpoints.conninfos = options_.read_conninfos;
  endpoints.names = options_.read_names;
  endpoints.check_period = options_.standby_check_period;
  endpoints.connection = ConnectionOptionsOf(options_);
  endpoints.connections = options_.connections;
  endpoints.on_change = options_.on_read_route_change;
  read_endpoints_ = std::make_unique<ReadEndpoints>(pq, std::move(conninfo), std::move(endpoints));
}

void PostgresStore::AbandonCallsInFlight() {
  pool_.BreakLeased();
  if (read_endpoints_ != nullptr) read_endpoints_->BreakLeased();
}

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(std::string conninfo,
                                                                   PostgresOptions options) {
  if (conninfo.empty()) {
    return absl::InvalidArgumentError("PostgreSQL store: the connection string is empty");
  }
  if (absl::Status checked =
          CheckPoolAndClock("PostgreSQL store", options.connections, options.clock);
      !checked.ok()) {
    return checked;
  }
  for (absl::Duration timeout :
       {options.lock_timeout, options.statement_timeout, options.connect_timeout}) {
    if (timeout < absl::Milliseconds(1)) {
      return absl::InvalidArgumentError("PostgreSQL store: timeouts must be at least 1 ms");
    }
  }
  if (options.read_conninfos.size() > static_cast<size_t>(kMaxReadEndpoints)) {
    return absl::InvalidArgumentError(absl::StrCat("PostgreSQL store: at most ", kMaxReadEndpoints,
                                                   " read endpoints, not ",
                                                   options.read_conninfos.size()));
  }
  for (const std::string& read : options.read_conninfos) {
    if (read.empty()) {
      return absl::InvalidArgumentError(
          "PostgreSQL store: a read endpoint's connection string "
          "is empty");
    }
  }
  if (options.standby_check_period < absl::Milliseconds(10) ||
      options.standby_check_period > absl::Minutes(1)) {
    return absl::InvalidArgumentError(
        "PostgreSQL store: the standby check period must be 10 ms to 1 min");
  }
  // A standby stuck since a commit is refused within about two check periods; a writer whose wait
  // for it ends sooner (statement_timeout cancels it) commits locally, unseen by the standby.
  if (!options.read_conninfos.empty() &&
      2 * options.standby_check_period >= options.statement_timeout) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PostgreSQL store: twice the standby check period (",
        absl::FormatDuration(options.standby_check_period),
        ") must be shorter than statement_timeout (",
        absl::FormatDuration(options.statement_timeout),
        "): a standby stuck since a commit must be refused before a writer's wait for it is "
        "cancelled and the commit returns without it"));
  }
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  const bool defer_open_errors = options.defer_open_errors;
  return OpenFirstConnection(
      absl::WrapUnique(new PostgresStore(**pq, std::move(conninfo), std::move(options))),
      defer_open_errors);
}

absl::StatusOr<std::unique_ptr<ReadSnapshot>> PostgresStore::BeginRead() {
  ReadRouteCounters* counters = options_.read_counters;
  if (read_endpoints_ != nullptr) {
    if (std::optional<ReadEndpoints::Choice> standby = read_endpoints_->Pick()) {
      absl::StatusOr<ConnectionPool::Lease> lease =
          standby->pool->CheckoutInTransaction(TransactionKind::kRead);
      if (lease.ok()) {
        if (counters != nullptr) counters->on_standby.fetch_add(1, std::memory_order_relaxed);
        return std::make_unique<PostgresReadSnapshot>(*standby->pool, *std::move(lease),
                                                      read_endpoints_.get(), standby->index, &pool_,
                                                      counters);
      }
      read_endpoints_->Drop(standby->index, lease.status().message());
      if (counters != nullptr) counters->standby_failures.fetch_add(1, std::memory_order_relaxed);
    }
  }
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.CheckoutInTransaction(TransactionKind::kRead);
  if (!lease.ok()) return lease.status();
  if (counters != nullptr) counters->on_primary.fetch_add(1, std::memory_order_relaxed);
  return std::make_unique<PostgresReadSnapshot>(pool_, *std::move(lease));
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> PostgresStore::BeginWrite() {
  absl::StatusOr<ConnectionPool::Lease> lease =
      pool_.CheckoutInTransaction(TransactionKind::kWrite);
  if (!lease.ok()) return lease.status();
  return std::make_unique<PostgresWriteTransaction>(pool_, *std::move(lease));
}

}  // namespace verdict
