#include "store/sqlite_store.h"

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/memory/memory.h"
#include "absl/strings/str_cat.h"
#include "store/decision_record.h"
#include "store/ids.h"
#include "store/lookups.h"
#include "store/policy_encoding.h"
#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_lookups.h"

namespace verdict {
namespace {

// The PolicyView lookups over the leased connection, for both kinds of transaction.
//
// SQLite's own: an agent, its permissions and the delegations into it come from its one
// decision_records row (store/decision_record.h), read at most once per transaction: a decision
// asks for the agent first and for the rest of its row moments later. The rows are kept in the
// connection's workspace, which the next transaction overwrites, so nothing outlives the snapshot
// it was read in (design section 3); the writes a WriteTransaction makes (rate counters, approvals)
// never touch them.
template <typename Base>
class SqlitePolicyView : public PolicyViewOn<Base> {
 public:
  explicit SqlitePolicyView(ConnectionPool::Lease lease) : lease_(std::move(lease)) {
    sqlite().decoded_records().Reset();
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
    absl::StatusOr<bool> found = CatchSqlite(sqlite(), [&]() -> absl::StatusOr<bool> {
      return LookupDecisionRecordByTokenHash(sqlite(), token_sha256, now, token_record_);
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
    std::vector<Permission>& may_match =
        *may_match_.emplace_back(std::make_unique<std::vector<Permission>>());
    absl::Status found =
        sqlite().wide_permissions().MayMatch(agent_id, text, action, resource, may_match);
    if (!found.ok()) return found;
    return absl::MakeConstSpan(may_match);
  }

  absl::StatusOr<bool> HoldsAllowPermission(absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return AnyAllowPermissionRecord((*kept)->record.permissions);
  }

 protected:
  Connection* connection() override { return &*lease_; }
  SqliteConnection& sqlite() { return lease_.As<SqliteConnection>(); }

 private:
  DecodedRecords& records() { return sqlite().decoded_records(); }

  // The agent's row, read at most once in this transaction.
  absl::StatusOr<const DecodedRecords::Kept*> Record(absl::string_view agent_id) {
    if (const DecodedRecords::Kept* kept = records().Find(agent_id)) return kept;
    DecodedRecords::Kept& slot = records().Add(agent_id);
    absl::StatusOr<bool> found = CatchSqlite(sqlite(), [&]() -> absl::StatusOr<bool> {
      return LookupDecisionRecord(sqlite(), agent_id, slot.record);
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
  // PermissionsThatMayMatch's answers, each alive (and in place: its span is handed out) as
  // long as the snapshot. Most snapshots give none, and an empty vector costs no allocation.
  std::vector<std::unique_ptr<std::vector<Permission>>> may_match_;
  DecisionRecord token_record_;  // a token's row before its agent is known
};

class SqliteReadSnapshot final : public SqlitePolicyView<ReadSnapshot> {
 public:
  using SqlitePolicyView::SqlitePolicyView;
  // A read transaction has nothing to keep: COMMIT just releases its snapshot.
  ~SqliteReadSnapshot() override {
    if (!sqlite().Commit().ok()) sqlite().Rollback();
  }
};

using SqliteWriteTransaction = WriteTransactionOn<SqlitePolicyView<WriteTransaction>>;

}  // namespace

SqliteStore::SqliteStore(const std::string& path, const SqliteOptions& options)
    : DatabaseStore(
          [&] {
            return SqliteSource(path,
                                ConnectionOptions{options.busy_timeout, options.create_if_missing,
                                                  options.mmap_bytes});
          },
          PoolOptions{.size = options.connections}, PoolOptions{.size = 1}, options.clock) {}

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(std::string path,
                                                               SqliteOptions options) {
  if (path.empty()) return absl::InvalidArgumentError("SQLite store: the path is empty");
  if (absl::Status checked = CheckPoolAndClock("SQLite store", options.connections, options.clock);
      !checked.ok()) {
    return checked;
  }
  if (options.mmap_bytes < 0) {
    return absl::InvalidArgumentError("SQLite store: mmap_bytes must not be negative");
  }
  if (options.busy_timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("SQLite store: busy_timeout must not be negative");
  }
  return OpenFirstConnection(absl::WrapUnique(new SqliteStore(path, options)),
                             options.defer_open_errors);
}

absl::StatusOr<std::unique_ptr<ReadSnapshot>> SqliteStore::BeginRead() {
  absl::StatusOr<ConnectionPool::Lease> lease = pool_.CheckoutInTransaction(TransactionKind::kRead);
  if (!lease.ok()) return lease.status();
  return std::make_unique<SqliteReadSnapshot>(*std::move(lease));
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> SqliteStore::BeginWrite() {
  absl::StatusOr<ConnectionPool::Lease> lease =
      pool_.CheckoutInTransaction(TransactionKind::kWrite);
  if (!lease.ok()) return lease.status();
  return std::make_unique<SqliteWriteTransaction>(*std::move(lease));
}

}  // namespace verdict
