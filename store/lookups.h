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
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/policy_store.h"
#include "decision/types.h"
#include "store/connection.h"

namespace verdict {

// decision/policy_view.h states the contracts.
absl::StatusOr<std::optional<Agent>> LookupAgent(Connection& connection,
                                                 absl::string_view agent_id);
// By its current token, or the previous one still in its grace at `now`.
absl::StatusOr<std::optional<Agent>> LookupAgentByTokenHash(Connection& connection,
                                                            absl::string_view token_sha256,
                                                            absl::Time now);
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
// transaction (`Base` is ReadSnapshot or WriteTransaction). A store may read some rows its own
// way by overriding their lookups, and may run a lookup again on a fresh connection.
// Clears the agent's descriptive columns (decision/types.h's VERDICT_AGENT_TEXT_COLUMNS): no
// decision reads them, and every store answers a decision's lookup without them, alike.
inline void ClearAgentText(Agent& agent) {
  for (const AgentTextColumn<Agent>& text : kAgentTextColumns<Agent>) (agent.*text.member).clear();
}

template <typename Base>
class PolicyViewOn : public Base {
 public:
  // An agent as a decision reads it: without the descriptive columns (kAgentTextColumns), as
  // SQLite's decision records hold it, so every store answers alike.
  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return ForDecision(Lookup([&](Connection& c) { return LookupAgent(c, agent_id); }));
  }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    return ForDecision(
        Lookup([&](Connection& c) { return LookupAgentByTokenHash(c, token_sha256, now); }));
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    return Lookup([&](Connection& c) { return LookupPermissionsOf(c, agent_id); });
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return Lookup([&](Connection& c) { return LookupActiveDelegationsInto(c, agent_id, now); });
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

  static absl::StatusOr<std::optional<Agent>> ForDecision(
      absl::StatusOr<std::optional<Agent>> agent) {
    if (agent.ok() && agent->has_value()) ClearAgentText(**agent);
    return agent;
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
