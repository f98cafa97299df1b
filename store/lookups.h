// The stores' reads and the decision path's writes over one connection (store/connection.h),
// inside a transaction the caller holds, for both databases: the PolicyView lookups, the few
// reads the admin plane adds, and a WriteTransaction's writes. ResultRows are read by
// store/row_readers.h; a stored row that cannot be decoded is INTERNAL, never skipped.
//
//   absl::StatusOr<std::optional<Agent>> agent = LookupAgent(connection, "agt_1");
#ifndef VERDICT_STORE_LOOKUPS_H_
#define VERDICT_STORE_LOOKUPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "decision/policy_store.h"
#include "decision/types.h"
#include "store/connection.h"
#include "store/decision_record.h"

namespace verdict {

// decision/policy_view.h states the contracts.
absl::StatusOr<std::optional<Agent>> LookupAgent(Connection& connection,
                                                 absl::string_view agent_id);
absl::StatusOr<std::vector<Permission>> LookupPermissionsOf(Connection& connection,
                                                            absl::string_view agent_id);
// Delegations into (or out of) the agent, active and unexpired at `now`, in creation order.
absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsInto(Connection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now);
absl::StatusOr<std::vector<Delegation>> LookupActiveDelegationsFrom(Connection& connection,
                                                                    absl::string_view agent_id,
                                                                    absl::Time now);
absl::StatusOr<std::optional<ApprovalRequest>> LookupOpenApproval(
    Connection& connection, absl::string_view agent_id, absl::string_view action,
    absl::string_view resource, absl::string_view arguments_hash, absl::Time now);
// A pending or approved request past its expiry at `now` reads as expired.
absl::StatusOr<std::optional<ApprovalRequest>> LookupApproval(Connection& connection,
                                                              absl::string_view approval_id,
                                                              absl::Time now);
absl::StatusOr<int64_t> LookupRateCount(Connection& connection, absl::string_view agent_id,
                                        absl::string_view permission_id, int64_t window_start_unix);
// The agent's requests pending and unexpired at `now`, counted no further than `up_to`.
absl::StatusOr<int64_t> CountPendingApprovals(Connection& connection, absl::string_view agent_id,
                                              absl::Time now, int64_t up_to);
absl::StatusOr<std::optional<Permission>> LookupPermission(Connection& connection,
                                                           absl::string_view permission_id);
absl::StatusOr<std::optional<Delegation>> LookupDelegation(Connection& connection,
                                                           absl::string_view delegation_id);
// Signing keys by kid: only an active one, or any.
absl::StatusOr<std::optional<SigningKey>> LookupActiveSigningKey(Connection& connection,
                                                                 absl::string_view kid);
absl::StatusOr<std::optional<SigningKey>> LookupSigningKey(Connection& connection,
                                                           absl::string_view kid);
absl::StatusOr<bool> LookupTokenIdRevoked(Connection& connection, absl::string_view jti);

// A WriteTransaction's writes (decision/policy_store.h states them).
absl::Status SpendRateOn(Connection& connection, const RateSpend& spend);
absl::StatusOr<std::string> OpenApprovalOn(Connection& connection, const ApprovalToOpen& approval,
                                           absl::Time now);
absl::Status UseApprovalOn(Connection& connection, absl::string_view approval_id, absl::Time now);
absl::StatusOr<std::vector<std::string>> ApproversOfOn(Connection& connection,
                                                       absl::string_view approval_id);

// The PolicyView lookups over the connection that holds a store's transaction, for both kinds of
// transaction (`Base` is ReadSnapshot or WriteTransaction), and for both databases.
//
// An agent, its permissions and the delegations into it come from its one decision_records row
// (store/decision_record.h), read at most once per transaction: a decision asks for the agent
// first and for the rest of its row moments later. Each store says how it reads a row
// (ReadRecord, ReadRecordByTokenHash) and where the decoded rows live for the transaction
// (records()), so that nothing read outlives the snapshot it was read in (design section 3). A
// store may run a lookup again on a fresh connection (LostBeforeAnswer, Reconnect).
template <typename Base>
class PolicyViewOn : public Base {
 public:
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
    absl::StatusOr<const Agent*> agent = FindAgentRefByTokenHash(token_sha256, now);
    if (!agent.ok()) return agent.status();
    if (*agent == nullptr) return std::nullopt;
    return **agent;
  }
  // The row is read into a slot of its own before its agent is known. Once decoded, the slot is
  // that agent's, unless this transaction read the agent already: then it is given back.
  absl::StatusOr<const Agent*> FindAgentRefByTokenHash(absl::string_view token_sha256,
                                                       absl::Time now) override {
    DecodedRecords::Kept& slot = records().Add("");
    absl::StatusOr<bool> found = ReadRecordByTokenHash(token_sha256, now, slot.record);
    if (found.ok() && *found) {
      absl::Status decoded = DecodeAgentRecordInto(slot.record.agent, slot.agent);
      if (!decoded.ok()) found = decoded;
    }
    if (!found.ok() || !*found) {
      records().ForgetLast();
      if (!found.ok()) return found.status();
      return nullptr;
    }
    if (const DecodedRecords::Kept* earlier = records().Find(slot.agent.id)) {
      records().ForgetLast();
      // Only a corrupt row could name an agent this snapshot found no row of.
      if (!earlier->exists) {
        return absl::InternalError(absl::StrCat("policy store: the row of a token names agent ",
                                                earlier->agent_id,
                                                ", which has no row of its own"));
      }
      return &earlier->agent;
    }
    slot.agent_id = slot.agent.id;
    slot.exists = true;
    return &slot.agent;
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
  // What the engine reads: rows decoded into records(), reused from one transaction to the next.
  absl::StatusOr<absl::Span<const Permission>> PermissionsSpan(
      absl::string_view agent_id) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return records().Permissions((*kept)->record.permissions);
  }
  // Only the permissions whose pattern may match `resource` are decoded; `action` is left to
  // the engine.
  absl::StatusOr<absl::Span<const Permission>> PermissionsThatMayMatch(
      absl::string_view agent_id, absl::string_view, absl::string_view resource) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return records().PermissionsThatMayMatch((*kept)->record.permissions, resource);
  }
  absl::StatusOr<absl::Span<const Delegation>> ActiveDelegationsIntoSpan(absl::string_view agent_id,
                                                                         absl::Time now) override {
    absl::StatusOr<const DecodedRecords::Kept*> kept = Record(agent_id);
    if (!kept.ok()) return kept.status();
    return records().Delegations((*kept)->record.delegations_into, now);
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
    return Lookup([&](Connection& c) {
      return LookupOpenApproval(c, agent_id, action, resource, arguments_hash, now);
    });
  }
  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override {
    return Lookup(
        [&](Connection& c) { return verdict::CountPendingApprovals(c, agent_id, now, up_to); });
  }
  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    return Lookup([&](Connection& c) {
      return LookupRateCount(c, agent_id, permission_id, window_start_unix);
    });
  }
  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid) override {
    return Lookup([&](Connection& c) { return LookupActiveSigningKey(c, kid); });
  }
  absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti) override {
    return Lookup([&](Connection& c) { return LookupTokenIdRevoked(c, jti); });
  }

 protected:
  // The connection that holds the transaction; nullptr once it is lost.
  virtual Connection* connection() = 0;
  // True when a lookup that failed may run again on a fresh connection (nothing was done).
  virtual bool LostBeforeAnswer() { return false; }
  // Replaces the connection with a fresh one in a new transaction of the same kind.
  virtual absl::Status Reconnect() { return absl::OkStatus(); }

  // The rows read in this transaction, decoded.
  virtual DecodedRecords& records() = 0;
  // The agent's decision record into `record`, overwriting it; false when there is no such
  // agent.
  virtual absl::StatusOr<bool> ReadRecord(absl::string_view agent_id, DecisionRecord& record) = 0;
  // The same, by the agent's current token, or else its previous one still in its grace at
  // `now`.
  virtual absl::StatusOr<bool> ReadRecordByTokenHash(absl::string_view token_sha256, absl::Time now,
                                                     DecisionRecord& record) = 0;

  // The agent's row, read at most once in this transaction.
  absl::StatusOr<const DecodedRecords::Kept*> Record(absl::string_view agent_id) {
    if (const DecodedRecords::Kept* kept = records().Find(agent_id)) return kept;
    DecodedRecords::Kept& slot = records().Add(agent_id);
    absl::StatusOr<bool> found = ReadRecord(agent_id, slot.record);
    if (found.ok() && *found) {
      absl::Status decoded = DecodeAgentRecordInto(slot.record.agent, slot.agent);
      if (!decoded.ok()) found = decoded;
    }
    if (!found.ok()) {
      records().ForgetLast();  // never leave a half-read row to be found later
      return found.status();
    }
    slot.exists = *found;
    // The slot's record may hold an earlier transaction's text: an agent that does not exist
    // holds nothing.
    if (!slot.exists) slot.record = DecisionRecord();
    return &slot;
  }

  template <typename Body>
  auto Lookup(Body body) -> decltype(body(std::declval<Connection&>())) {
    if (connection() == nullptr) {
      return absl::UnavailableError("policy store unavailable: no database connection");
    }
    auto result = body(*connection());
    if (result.ok() || !LostBeforeAnswer()) return result;
    if (absl::Status fresh = Reconnect(); !fresh.ok()) return fresh;
    return body(*connection());
  }
};

// A WriteTransaction over a store's policy view (`View`, a PolicyViewOn<WriteTransaction>): its
// writes and commit, and its rollback when it ends uncommitted.
template <typename View>
class WriteTransactionOn final : public View {
 public:
  using View::View;
  ~WriteTransactionOn() override {
    if (!committed_) this->connection()->Rollback();
  }

  absl::Status SpendRate(const RateSpend& spend) override {
    return SpendRateOn(*this->connection(), spend);
  }
  absl::StatusOr<std::string> OpenApproval(const ApprovalToOpen& approval,
                                           absl::Time now) override {
    return OpenApprovalOn(*this->connection(), approval, now);
  }
  absl::Status UseApproval(absl::string_view approval_id, absl::Time now) override {
    return UseApprovalOn(*this->connection(), approval_id, now);
  }
  absl::StatusOr<std::vector<std::string>> ApproversOf(absl::string_view approval_id) override {
    return ApproversOfOn(*this->connection(), approval_id);
  }
  absl::Status Commit() override {
    if (committed_) return absl::FailedPreconditionError("transaction already committed");
    absl::Status status = this->connection()->Commit();
    committed_ = status.ok();
    return status;
  }

 private:
  bool committed_ = false;
};

}  // namespace verdict

#endif  // VERDICT_STORE_LOOKUPS_H_
