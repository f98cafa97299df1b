#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <list>
#include <optional>
#include <string>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/decision_record.h"
#include "store/ids.h"
#include "store/policy_encoding.h"
#include "store/schema.h"
#include "store/sqlite_lookups.h"
#include "store/sqlite_signing_keys.h"

namespace verdict {
namespace {

constexpr int kMaxConnections = 256;

absl::Status BeginTransaction(SqliteConnection& connection, bool write) {
  return CatchSqlite(connection, [&] {
    if (write) {
      // Serialises with every other writer; waits for the write lock within busy_timeout.
      RetryWhileBusy(connection.options().busy_timeout,
                     [&] { connection.Execute(StatementId::kBeginWrite); });
    } else {
      connection.Execute(StatementId::kBeginRead);
    }
    return absl::OkStatus();
  });
}

// Ends the connection's transaction without throwing. A connection left inside a transaction
// would fail its next BEGIN, so one that cannot leave it is closed instead of reused.
void EndTransaction(SqliteConnection& connection, StatementId end) {
  absl::Status ended = CatchSqlite(connection, [&] {
    connection.Execute(end);
    return absl::OkStatus();
  });
  if (!ended.ok()) connection.database().tryExec("ROLLBACK");
  if (sqlite3_get_autocommit(connection.database().getHandle()) == 0) connection.MarkBroken();
}

// The PolicyView lookups over the leased connection, for both kinds of transaction.
//
// An agent, its permissions and the delegations into it come from its one decision_records
// row (store/decision_record.h), read at most once per transaction: a decision asks for the
// agent first and for the rest of its row moments later. The rows are kept in the connection's
// workspace, which the next transaction overwrites, so nothing outlives the snapshot it was read
// in (design section 3); the writes a WriteTransaction makes (rate counters, approvals) never
// touch them.
template <typename Base>
class SqlitePolicyView : public Base {
 public:
  explicit SqlitePolicyView(ConnectionPool::Lease lease) : lease_(std::move(lease)) {
    connection().decoded_records().Reset();
  }

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    if (!(*kept)->exists) return std::nullopt;
    return (*kept)->agent;
  }

  absl::StatusOr<const Agent*> FindAgentRef(absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return (*kept)->exists ? &(*kept)->agent : nullptr;
  }

  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    // Read into a scratch slot first: the token's agent is known only once its row is decoded.
    absl::StatusOr<bool> found = CatchSqlite(connection(), [&]() -> absl::StatusOr<bool> {
      return LookupDecisionRecordByTokenHash(connection(), token_sha256, now, token_record_);
    });
    if (!found.ok()) return found.status();
    if (!*found) return std::nullopt;
    Agent agent;
    absl::Status decoded = DecodeAgentRecordInto(token_record_.agent, agent);
    if (!decoded.ok()) return decoded;
    if (records().Find(agent.id) == nullptr) {
      DecodedRecords::Kept& slot = records().Add(agent.id);
      slot.exists = true;
      std::swap(slot.record, token_record_);
      slot.agent = agent;
    }
    return agent;
  }

  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return DecodePermissionRecords((*kept)->record.permissions);
  }

  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return DecodeDelegationRecords((*kept)->record.delegations_into, now);
  }

  // What the engine reads: rows decoded into the connection's reused rows.
  absl::StatusOr<absl::Span<const Permission>> PermissionsSpan(
      absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return records().Permissions((*kept)->record.permissions);
  }

  absl::StatusOr<absl::Span<const Delegation>> ActiveDelegationsIntoSpan(absl::string_view agent_id,
                                                                         absl::Time now) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return records().Delegations((*kept)->record.delegations_into, now);
  }

  // An agent with many permissions: only those that may match, from the connection's index of
  // exactly this text (store/wide_permissions.h).
  absl::StatusOr<absl::Span<const Permission>> PermissionsThatMayMatch(
      absl::string_view agent_id, absl::string_view action, absl::string_view resource) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    const std::string& text = (*kept)->record.permissions;
    if (text.size() < WidePermissions::kMinBytes) return records().Permissions(text);
    std::vector<Permission>& may_match = may_match_.emplace_back();
    absl::Status found =
        connection().wide_permissions().MayMatch(agent_id, text, action, resource, may_match);
    if (!found.ok()) return found;
    return absl::MakeConstSpan(may_match);
  }

  absl::StatusOr<bool> HoldsAllowPermission(absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return AnyAllowPermissionRecord((*kept)->record.permissions);
  }

  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override {
    return CatchSqlite(connection(), [&] {
      return LookupOpenApproval(connection(), agent_id, action, resource, arguments_hash, now);
    });
  }

  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override {
    return CatchSqlite(connection(), [&] {
      return verdict::CountPendingApprovals(connection(), agent_id, now, up_to);
    });
  }

  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    return CatchSqlite(connection(), [&] {
      return LookupRateCount(connection(), agent_id, permission_id, window_start_unix);
    });
  }

  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid) override {
    return CatchSqlite(connection(), [&] { return LookupActiveSigningKey(connection(), kid); });
  }

  absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti) override {
    return CatchSqlite(connection(), [&] { return LookupTokenIdRevoked(connection(), jti); });
  }

 protected:
  SqliteConnection& connection() { return *lease_; }

 private:
  DecodedRecords& records() { return connection().decoded_records(); }

  // The agent's row, read at most once in this transaction.
  absl::StatusOr<const DecodedRecords::Kept*> Record(absl::string_view agent_id) {
    if (const DecodedRecords::Kept* kept = records().Find(agent_id)) return kept;
    DecodedRecords::Kept& slot = records().Add(agent_id);
    absl::StatusOr<bool> found = CatchSqlite(connection(), [&]() -> absl::StatusOr<bool> {
      return LookupDecisionRecord(connection(), agent_id, slot.record);
    });
    if (found.ok() && *found) {
      absl::Status decoded = DecodeAgentRecordInto(slot.record.agent, slot.agent);
      if (!decoded.ok()) found = decoded;
    }
    if (!found.ok()) {
      records().ForgetLast();  // never leave a half-read row to be found later
      return found.status();
    }
    slot.exists = *found;
    // The slot's record holds an earlier transaction's text: an agent that does not exist
    // holds nothing.
    if (!slot.exists) slot.record = DecisionRecord();
    return &slot;
  }

  ConnectionPool::Lease lease_;
  std::list<std::vector<Permission>> may_match_;  // PermissionsThatMayMatch's answers
  DecisionRecord token_record_;                   // a token's row before its agent is known
};

class SqliteReadSnapshot final : public SqlitePolicyView<ReadSnapshot> {
 public:
  using SqlitePolicyView::SqlitePolicyView;
  // A read transaction has nothing to keep: COMMIT just releases its snapshot.
  ~SqliteReadSnapshot() override { EndTransaction(connection(), StatementId::kCommit); }
};

class SqliteWriteTransaction final : public SqlitePolicyView<WriteTransaction> {
 public:
  using SqlitePolicyView::SqlitePolicyView;
  ~SqliteWriteTransaction() override {
    if (!committed_) EndTransaction(connection(), StatementId::kRollback);
  }

  absl::Status SpendRate(const RateSpend& spend) override {
    return CatchSqlite(connection(), [&] {
      ScopedStatement upsert = connection().Use(StatementId::kSpendRate);
      upsert.BindText(1, spend.agent_id);
      upsert.BindText(2, spend.permission_id);
      upsert.BindInt64(3, spend.window_start_unix);
      if (std::optional<int64_t> kept_until = RateCountKeptUntil(spend)) {
        upsert.BindInt64(4, *kept_until);
      } else {
        upsert.BindNull(4);
      }
      upsert.Execute();
      if (std::optional<int64_t> earliest = EarliestKeptRateWindow(spend)) {
        ScopedStatement forget = connection().Use(StatementId::kForgetEndedRateWindows);
        forget.BindText(1, spend.agent_id);
        forget.BindText(2, spend.permission_id);
        forget.BindInt64(3, *earliest);
        forget.Execute();
      }
      return absl::OkStatus();
    });
  }

  absl::StatusOr<std::string> OpenApproval(const ApprovalToOpen& approval,
                                           absl::Time now) override {
    return CatchSqlite(connection(), [&]() -> absl::StatusOr<std::string> {
      std::string id = NewId(kApprovalIdPrefix);
      ScopedStatement insert = connection().Use(StatementId::kInsertApproval);
      insert.BindText(1, id);
      insert.BindText(2, approval.agent_id);
      insert.BindText(3, approval.action);
      insert.BindText(4, approval.resource);
      insert.BindText(5, approval.arguments_hash);
      insert.BindInt64(6, approval.quorum);
      insert.BindTime(7, approval.expires_at);
      insert.BindTime(8, now);
      insert.Execute();
      return id;
    });
  }

  absl::Status UseApproval(absl::string_view approval_id, absl::Time now) override {
    return CatchSqlite(connection(), [&]() -> absl::Status {
      {
        ScopedStatement use = connection().Use(StatementId::kUseApproval);
        use.BindText(1, approval_id);
        use.BindTime(2, now);
        if (use.Execute() == 1) return absl::OkStatus();
      }
      absl::StatusOr<std::optional<ApprovalRequest>> approval =
          LookupApproval(connection(), approval_id, now);
      if (!approval.ok()) return approval.status();
      if (!approval->has_value()) {
        return absl::NotFoundError(absl::StrCat("approval ", approval_id, " does not exist"));
      }
      return absl::FailedPreconditionError(absl::StrCat("approval ", approval_id, " is ",
                                                        ApprovalStatusName((*approval)->status),
                                                        ", not approved"));
    });
  }

  absl::Status Commit() override {
    if (committed_) return absl::FailedPreconditionError("transaction already committed");
    absl::Status status = CatchSqlite(connection(), [&] {
      connection().Execute(StatementId::kCommit);
      return absl::OkStatus();
    });
    committed_ = status.ok();
    return status;
  }

 private:
  bool committed_ = false;
};

}  // namespace

SqliteStore::SqliteStore(std::string path, SqliteOptions options)
    : options_(std::move(options)),
      pool_(
          path,
          ConnectionOptions{options_.busy_timeout, options_.create_if_missing, options_.mmap_bytes},
          options_.connections),
      prune_pool_(
          std::move(path),
          ConnectionOptions{options_.busy_timeout, options_.create_if_missing, options_.mmap_bytes},
          1) {}

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(std::string path,
                                                               SqliteOptions options) {
  if (path.empty()) return absl::InvalidArgumentError("SQLite store: the path is empty");
  if (options.connections < 1 || options.connections > kMaxConnections) {
    return absl::InvalidArgumentError(absl::StrCat("SQLite store: connections must be 1 to ",
                                                   kMaxConnections, ", not ", options.connections));
  }
  if (options.mmap_bytes < 0) {
    return absl::InvalidArgumentError("SQLite store: mmap_bytes must not be negative");
  }
  if (options.busy_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("SQLite store: busy_timeout must not be negative");
  }
  if (!options.clock) return absl::InvalidArgumentError("SQLite store: no clock");
  const bool defer_open_errors = options.defer_open_errors;
  auto store = absl::WrapUnique(new SqliteStore(std::move(path), std::move(options)));
  absl::Status available = store->CheckAvailable();
  if (!available.ok() && !defer_open_errors) return available;
  return store;
}

absl::StatusOr<std::unique_ptr<ReadSnapshot>> SqliteStore::BeginRead() {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  absl::Status begun = BeginTransaction(**lease, /*write=*/false);
  if (!begun.ok()) return begun;
  return std::make_unique<SqliteReadSnapshot>(*std::move(lease));
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> SqliteStore::BeginWrite() {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  absl::Status begun = BeginTransaction(**lease, /*write=*/true);
  if (!begun.ok()) return begun;
  return std::make_unique<SqliteWriteTransaction>(*std::move(lease));
}

absl::StatusOr<PrunedRows> SqliteStore::PruneDeadRows(const PruneLimits& limits, absl::Time now) {
  if (absl::Status valid = CheckPruneLimits(limits); !valid.ok()) return valid;
  absl::StatusOr<ConnectionPool::Lease> lease = prune_pool_.Checkout();
  if (!lease.ok()) return lease.status();
  SqliteConnection& connection = **lease;
  absl::Status status = BeginTransaction(connection, /*write=*/true);
  if (!status.ok()) return status;
  PrunedRows pruned;
  status = CatchSqlite(connection, [&] {
    {
      ScopedStatement approvals = connection.Use(StatementId::kPruneApprovals);
      approvals.BindTime(1, now - limits.approval_retention);
      approvals.BindInt64(2, limits.max_rows);
      pruned.approvals = approvals.Execute();
    }
    {
      ScopedStatement counters = connection.Use(StatementId::kPruneRateCounters);
      counters.BindInt64(1, absl::ToUnixSeconds(now));
      counters.BindInt64(2, limits.max_rows);
      pruned.rate_counters = counters.Execute();
    }
    connection.Execute(StatementId::kCommit);
    return absl::OkStatus();
  });
  if (status.ok()) return pruned;
  EndTransaction(connection, StatementId::kRollback);
  return status;
}

absl::Status SqliteStore::InTransaction(TransactionKind kind,
                                        absl::FunctionRef<absl::Status(SqliteConnection&)> body) {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.Checkout();
  if (!lease.ok()) return lease.status();
  SqliteConnection& connection = **lease;
  absl::Status status = BeginTransaction(connection, kind == TransactionKind::kWrite);
  if (!status.ok()) return status;
  status = CatchSqlite(connection, [&] { return body(connection); });
  if (status.ok()) {
    status = CatchSqlite(connection, [&] {
      connection.Execute(StatementId::kCommit);
      return absl::OkStatus();
    });
    if (status.ok()) return status;
  }
  EndTransaction(connection, StatementId::kRollback);
  return status;
}

}  // namespace verdict
