#include "store/postgres_store.h"

#include <optional>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/postgres_lookups.h"

namespace verdict {
namespace {

constexpr int kMaxConnections = 256;

// One snapshot for every read of the call: REPEATABLE READ takes it at the first statement.
constexpr char kBeginRead[] = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

// READ COMMITTED under the writers' lock: every read after the lock sees every write committed
// before it, as a write transaction must (decision/policy_store.h).
const std::string& BeginWriteSql() {
  static const std::string* const sql = new std::string(
      absl::StrCat("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT ", "pg_advisory_xact_lock(",
                   kPgLockSpace, ", ", kPgWriterLock, ")"));
  return *sql;
}

absl::Status BeginTransaction(PostgresConnection& connection, bool write) {
  if (!write) {
    connection.DeferBegin(kBeginRead);  // sent with the first lookup, in one round trip
    return absl::OkStatus();
  }
  absl::Status begun = connection.ExecuteScript(BeginWriteSql().c_str());
  if (!begun.ok()) connection.Rollback();
  return begun;
}

// A leased connection with its transaction begun. A pooled connection that the server ended
// while it sat idle, and that failed before answering anything, is replaced once by a fresh one.
absl::StatusOr<PostgresPool::Lease> LeaseWithTransaction(PostgresPool& pool, bool write) {
  absl::StatusOr<PostgresPool::Lease> lease = pool.Checkout();
  if (!lease.ok()) return lease.status();
  absl::Status begun = BeginTransaction(**lease, write);
  if (begun.ok()) return lease;
  if (!lease->LostWhileIdle()) return begun;
  lease->Release();  // its slot, for the fresh connection
  absl::StatusOr<PostgresPool::Lease> fresh = pool.Checkout(PostgresPool::Reuse::kFresh);
  if (!fresh.ok()) return fresh.status();
  begun = BeginTransaction(**fresh, write);
  if (!begun.ok()) return begun;
  return fresh;
}

// Ends a read transaction without waiting for the server's answer, which the connection reads
// before its next command.
void EndRead(PostgresConnection& connection) {
  if (!connection.CommitWithoutWaiting().ok()) connection.MarkBroken();
}

// The PolicyView lookups over the leased connection, for both kinds of transaction.
template <typename Base>
class PostgresPolicyView : public Base {
 public:
  PostgresPolicyView(PostgresPool& pool, PostgresPool::Lease lease)
      : pool_(pool), lease_(std::move(lease)) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return Lookup([&](PostgresConnection& c) { return PgLookupAgent(c, agent_id); });
  }

  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    return Lookup(
        [&](PostgresConnection& c) { return PgLookupAgentByTokenHash(c, token_sha256, now); });
  }

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return Lookup([&](PostgresConnection& c) { return PgLookupPermissionsOf(c, agent_id); });
  }

  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return Lookup(
        [&](PostgresConnection& c) { return PgLookupActiveDelegationsInto(c, agent_id, now); });
  }

  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override {
    return Lookup([&](PostgresConnection& c) {
      return PgLookupOpenApproval(c, agent_id, action, resource, arguments_hash, now);
    });
  }

  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override {
    return PgCountPendingApprovals(connection(), agent_id, now, up_to);
  }

  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    return Lookup([&](PostgresConnection& c) {
      return PgLookupRateCount(c, agent_id, permission_id, window_start_unix);
    });
  }

  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid) override {
    return Lookup([&](PostgresConnection& c) { return PgLookupActiveSigningKey(c, kid); });
  }

  absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti) override {
    return Lookup([&](PostgresConnection& c) { return PgLookupTokenIdRevoked(c, jti); });
  }

 protected:
  PostgresConnection& connection() { return *lease_; }
  // False only after a read snapshot lost its connection and could not lease a fresh one.
  bool has_connection() const { return lease_.has_connection(); }

  // Runs a lookup. A read snapshot's first lookup also sends its BEGIN: when the server had ended
  // the pooled connection before, the lookup runs again, once, on a fresh connection (a write
  // transaction's BEGIN was answered already: LeaseWithTransaction).
  template <typename Body>
  auto Lookup(Body body) -> decltype(body(std::declval<PostgresConnection&>())) {
    if (!lease_.has_connection()) {
      return absl::UnavailableError("policy store unavailable: no PostgreSQL connection");
    }
    auto result = body(connection());
    if (result.ok() || !lease_.LostWhileIdle()) return result;
    lease_.Release();  // its slot, for the fresh connection
    absl::StatusOr<PostgresPool::Lease> fresh = pool_.Checkout(PostgresPool::Reuse::kFresh);
    if (!fresh.ok()) return fresh.status();
    (*fresh)->DeferBegin(kBeginRead);
    lease_ = *std::move(fresh);
    return body(connection());
  }

 private:
  PostgresPool& pool_;
  PostgresPool::Lease lease_;
};

class PostgresReadSnapshot final : public PostgresPolicyView<ReadSnapshot> {
 public:
  using PostgresPolicyView::PostgresPolicyView;
  // A read-only transaction has nothing to keep: COMMIT just releases its snapshot.
  ~PostgresReadSnapshot() override {
    if (has_connection()) EndRead(connection());
  }
};

class PostgresWriteTransaction final : public PostgresPolicyView<WriteTransaction> {
 public:
  using PostgresPolicyView::PostgresPolicyView;
  ~PostgresWriteTransaction() override {
    if (!committed_) connection().Rollback();
  }

  absl::Status SpendRate(const RateSpend& spend) override {
    PgParams params;
    params.Text(spend.agent_id).Text(spend.permission_id).Int64(spend.window_start_unix);
    if (std::optional<int64_t> kept_until = RateCountKeptUntil(spend)) {
      params.Int64(*kept_until);
    } else {
      params.NullInt64();
    }
    absl::Status spent = connection().Execute(PgStatement::kSpendRate, params).status();
    const std::optional<int64_t> earliest = EarliestKeptRateWindow(spend);
    if (!spent.ok() || !earliest) return spent;
    return connection()
        .Execute(PgStatement::kForgetEndedRateWindows,
                 PgParams().Text(spend.agent_id).Text(spend.permission_id).Int64(*earliest))
        .status();
  }

  absl::StatusOr<std::string> OpenApproval(const ApprovalToOpen& approval,
                                           absl::Time now) override {
    std::string id = NewId(kApprovalIdPrefix);
    absl::StatusOr<PgResult> inserted =
        connection().Execute(PgStatement::kInsertApproval, PgParams()
                                                               .Text(id)
                                                               .Text(approval.agent_id)
                                                               .Text(approval.action)
                                                               .Text(approval.resource)
                                                               .Text(approval.arguments_hash)
                                                               .Int64(approval.quorum)
                                                               .Time(approval.expires_at)
                                                               .Time(now));
    if (!inserted.ok()) return inserted.status();
    return id;
  }

  absl::Status UseApproval(absl::string_view approval_id, absl::Time now) override {
    absl::StatusOr<PgResult> used =
        connection().Execute(PgStatement::kUseApproval, PgParams().Text(approval_id).Time(now));
    if (!used.ok()) return used.status();
    if (used->changed_rows() == 1) return absl::OkStatus();
    absl::StatusOr<std::optional<ApprovalRequest>> approval =
        PgLookupApproval(connection(), approval_id, now);
    if (!approval.ok()) return approval.status();
    if (!approval->has_value()) {
      return absl::NotFoundError(absl::StrCat("approval ", approval_id, " does not exist"));
    }
    return absl::FailedPreconditionError(absl::StrCat("approval ", approval_id, " is ",
                                                      ApprovalStatusName((*approval)->status),
                                                      ", not approved"));
  }

  absl::Status Commit() override {
    if (committed_) return absl::FailedPreconditionError("transaction already committed");
    absl::Status status = connection().Commit();
    committed_ = status.ok();
    return status;
  }

 private:
  bool committed_ = false;
};

}  // namespace

PostgresStore::PostgresStore(const LibPq& pq, std::string conninfo, PostgresOptions options)
    : options_(std::move(options)),
      pool_(pq, conninfo,
            PostgresConnectionOptions{.lock_timeout = options_.lock_timeout,
                                      .statement_timeout = options_.statement_timeout,
                                      .connect_timeout = options_.connect_timeout},
            options_.connections),
      prune_pool_(pq, std::move(conninfo),
                  PostgresConnectionOptions{.lock_timeout = options_.lock_timeout,
                                            .statement_timeout = options_.statement_timeout,
                                            .connect_timeout = options_.connect_timeout},
                  1) {}

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
  absl::StatusOr<PostgresPool::Lease> lease = LeaseWithTransaction(pool_, /*write=*/false);
  if (!lease.ok()) return lease.status();
  return std::make_unique<PostgresReadSnapshot>(pool_, *std::move(lease));
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> PostgresStore::BeginWrite() {
  absl::StatusOr<PostgresPool::Lease> lease = LeaseWithTransaction(pool_, /*write=*/true);
  if (!lease.ok()) return lease.status();
  return std::make_unique<PostgresWriteTransaction>(pool_, *std::move(lease));
}

// Without the writers' lock: the rows it deletes are ones no decision reads or writes again,
// so it never makes a decision wait.
absl::StatusOr<PrunedRows> PostgresStore::PruneDeadRows(const PruneLimits& limits, absl::Time now) {
  if (absl::Status valid = CheckPruneLimits(limits); !valid.ok()) return valid;
  absl::StatusOr<PostgresPool::Lease> lease = prune_pool_.Checkout();
  if (!lease.ok()) return lease.status();
  PostgresConnection& connection = **lease;
  absl::Status status = connection.ExecuteScript("BEGIN ISOLATION LEVEL READ COMMITTED");
  PrunedRows pruned;
  if (status.ok()) {
    absl::StatusOr<PgResult> approvals =
        connection.Execute(PgStatement::kPruneApprovals,
                           PgParams().Time(now - limits.approval_retention).Int64(limits.max_rows));
    if (approvals.ok()) pruned.approvals = approvals->changed_rows();
    status = approvals.status();
  }
  if (status.ok()) {
    absl::StatusOr<PgResult> counters =
        connection.Execute(PgStatement::kPruneRateCounters,
                           PgParams().Int64(absl::ToUnixSeconds(now)).Int64(limits.max_rows));
    if (counters.ok()) pruned.rate_counters = counters->changed_rows();
    status = counters.status();
  }
  if (status.ok()) status = connection.Commit();
  if (status.ok()) return pruned;
  connection.Rollback();
  return status;
}

absl::Status PostgresStore::InTransaction(
    TransactionKind kind, absl::FunctionRef<absl::Status(PostgresConnection&)> body) {
  const bool write = kind == TransactionKind::kWrite;
  absl::StatusOr<PostgresPool::Lease> lease = LeaseWithTransaction(pool_, write);
  if (!lease.ok()) return lease.status();
  absl::Status status = body(**lease);
  // A read's BEGIN goes with its first statement: the server may have ended the pooled
  // connection before, and nothing was done. Once more on a fresh connection.
  if (!status.ok() && !write && lease->LostWhileIdle()) {
    lease->Release();  // its slot, for the fresh connection
    absl::StatusOr<PostgresPool::Lease> fresh = pool_.Checkout(PostgresPool::Reuse::kFresh);
    if (!fresh.ok()) return fresh.status();
    BeginTransaction(**fresh, write).IgnoreError();  // deferred: cannot fail
    *lease = *std::move(fresh);
    status = body(**lease);
  }
  PostgresConnection& connection = **lease;
  if (status.ok() && kind == TransactionKind::kRead) {
    EndRead(connection);
    return status;
  }
  if (status.ok()) {
    status = connection.Commit();
    if (status.ok()) return status;
  }
  connection.Rollback();
  return status;
}

}  // namespace verdict
