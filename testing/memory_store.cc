#include "testing/memory_store.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "crypto/jwt.h"
#include "decision/admin/voting.h"
#include "decision/type_names.h"

namespace verdict {

using memory_store_internal::AgentRecord;
using memory_store_internal::ApprovalEntry;
using memory_store_internal::ApprovalTable;
using memory_store_internal::RateKey;
using memory_store_internal::RateTable;
using memory_store_internal::RateWindows;
using memory_store_internal::Tables;

namespace {

// The table itself when nobody else holds it, else a private copy that replaces it in `table`.
// Callers hold the store's mutex, under which every copy of a table pointer is made and dropped.
template <typename Table>
Table& Writable(std::shared_ptr<Table>& table) {
  if (table.use_count() != 1) table = std::make_shared<Table>(*table);
  return *table;
}

std::string CallKey(absl::string_view agent_id, absl::string_view action,
                    absl::string_view resource, absl::string_view arguments_hash) {
  // The unit separator cannot appear in a valid id, action, resource or hex hash.
  return absl::StrCat(agent_id, "\x1f", action, "\x1f", resource, "\x1f", arguments_hash);
}

// The lookups, shared by snapshots and transactions.

// The agent as the view's table holds it (see the span answers below), or nullptr.
const Agent* AgentIn(const Tables& tables, absl::string_view agent_id) {
  auto it = tables.agents->find(agent_id);
  return it == tables.agents->end() ? nullptr : &it->second.agent;
}

std::optional<Agent> FindAgentIn(const Tables& tables, absl::string_view agent_id) {
  const Agent* agent = AgentIn(tables, agent_id);
  if (agent == nullptr) return std::nullopt;
  return *agent;
}

std::optional<Agent> FindAgentByTokenHashIn(const Tables& tables, absl::string_view token_sha256,
                                            absl::Time now) {
  auto owner = tables.agent_by_token->find(token_sha256);
  if (owner == tables.agent_by_token->end()) return std::nullopt;
  const AgentRecord& record = tables.agents->at(owner->second);
  if (record.token_sha256 == token_sha256) return record.agent;
  if (record.previous_token_sha256 == token_sha256 && now < record.previous_valid_until) {
    return record.agent;
  }
  return std::nullopt;
}

std::optional<SigningKey> ActiveSigningKeyIn(const Tables& tables, absl::string_view kid) {
  auto it = tables.signing_keys->find(kid);
  if (it == tables.signing_keys->end() || it->second.status != SigningKeyStatus::kActive) {
    return std::nullopt;
  }
  return it->second;
}

// The span (and reference) answers point into the tables themselves: a view holds its version
// of every table, which no writer changes while anyone else holds it (copy on write), so the
// rows stay put for as long as the view lives.

absl::Span<const Permission> PermissionsIn(const Tables& tables, absl::string_view agent_id) {
  auto it = tables.permissions->find(agent_id);
  if (it == tables.permissions->end()) return {};
  return it->second;
}

bool ActiveAt(const Delegation& delegation, absl::Time now) {
  return delegation.status == DelegationStatus::kActive && now < delegation.expires_at;
}

std::vector<Delegation> ActiveDelegationsIn(const Tables& tables, absl::string_view agent_id,
                                            absl::Time now) {
  std::vector<Delegation> active;
  auto it = tables.delegations->into.find(agent_id);
  if (it == tables.delegations->into.end()) return active;
  for (const Delegation& delegation : it->second) {
    if (ActiveAt(delegation, now)) active.push_back(delegation);
  }
  return active;
}

// The table's own rows when every delegation into the agent is active (the usual case), else
// the active ones copied into `kept`, which must live as long as the view. A kept answer's rows
// stay put as `kept` grows (a vector's buffer moves with it), and an empty `kept` costs no
// allocation, which every snapshot would otherwise pay.
absl::Span<const Delegation> ActiveDelegationsSpanIn(const Tables& tables,
                                                     absl::string_view agent_id, absl::Time now,
                                                     std::vector<std::vector<Delegation>>& kept) {
  auto it = tables.delegations->into.find(agent_id);
  if (it == tables.delegations->into.end()) return {};
  const std::vector<Delegation>& into = it->second;
  if (std::all_of(into.begin(), into.end(),
                  [now](const Delegation& delegation) { return ActiveAt(delegation, now); })) {
    return into;
  }
  return kept.emplace_back(ActiveDelegationsIn(tables, agent_id, now));
}

std::optional<ApprovalRequest> FindOpenApprovalIn(const Tables& tables, absl::string_view agent_id,
                                                  absl::string_view action,
                                                  absl::string_view resource,
                                                  absl::string_view arguments_hash,
                                                  absl::Time now) {
  auto ids = tables.approvals->by_call.find(CallKey(agent_id, action, resource, arguments_hash));
  if (ids == tables.approvals->by_call.end()) return std::nullopt;
  for (auto id = ids->second.rbegin(); id != ids->second.rend(); ++id) {
    const ApprovalRequest& request = tables.approvals->by_id.at(*id).request;
    const bool open = request.status == ApprovalStatus::kPending ||
                      request.status == ApprovalStatus::kApproved ||
                      request.status == ApprovalStatus::kDenied;
    if (open && now < request.expires_at) return request;
  }
  return std::nullopt;
}

// Newest first, so an agent whose recent requests fill its cap is counted quickly.
int64_t CountPendingApprovalsIn(const Tables& tables, absl::string_view agent_id, absl::Time now,
                                int64_t up_to) {
  int64_t pending = 0;
  const std::vector<std::string>& ids = tables.approvals->in_creation_order;
  for (auto id = ids.rbegin(); id != ids.rend() && pending < up_to; ++id) {
    const ApprovalRequest& request = tables.approvals->by_id.at(*id).request;
    if (request.agent_id == agent_id && request.status == ApprovalStatus::kPending &&
        now < request.expires_at) {
      ++pending;
    }
  }
  return pending;
}

int64_t CountIn(const RateWindows& windows, int64_t window_start) {
  for (const auto& [start, count] : windows) {
    if (start == window_start) return count;
  }
  return 0;
}

int64_t RateCountIn(const RateTable& rates, const RateKey& key, int64_t window_start) {
  auto it = rates.find(key);
  return it == rates.end() ? 0 : CountIn(it->second, window_start);
}

// Counts `spend` in its (agent, permission)'s windows and forgets the windows before the one
// the SQL stores keep (EarliestKeptRateWindow), so the table does not grow without end.
void Count(RateWindows& windows, const RateSpend& spend) {
  auto window = std::find_if(windows.begin(), windows.end(), [&](const auto& start_and_count) {
    return start_and_count.first == spend.window_start_unix;
  });
  if (window == windows.end()) {
    windows.emplace_back(spend.window_start_unix, 1);
  } else {
    ++window->second;
  }
  if (std::optional<int64_t> earliest = EarliestKeptRateWindow(spend)) {
    windows.erase(std::remove_if(windows.begin(), windows.end(),
                                 [&](const auto& start_and_count) {
                                   return start_and_count.first < *earliest;
                                 }),
                  windows.end());
  }
}

absl::Status NotFound(absl::string_view what, absl::string_view id) {
  return absl::NotFoundError(absl::StrCat(what, " ", id, " not found"));
}

}  // namespace

// The PolicyView lookups over one set of tables, for both kinds of transaction; each keeps
// the tables it began on (and the rows its spans point into) until it is destroyed.
template <typename Base>
class MemoryPolicyView : public Base {
 public:
  MemoryPolicyView(MemoryPolicyStore& store, Tables tables)
      : store_(store), tables_(std::move(tables)) {}

  absl::StatusOr<std::optional<Agent>> FindAgent(absl::string_view agent_id) override {
    return FindAgentIn(tables_, agent_id);
  }
  absl::StatusOr<std::optional<Agent>> FindAgentByTokenHash(absl::string_view token_sha256,
                                                            absl::Time now) override {
    return FindAgentByTokenHashIn(tables_, token_sha256, now);
  }
  absl::StatusOr<std::vector<Permission>> PermissionsOf(absl::string_view agent_id) override {
    absl::Span<const Permission> permissions = PermissionsIn(tables_, agent_id);
    return std::vector<Permission>(permissions.begin(), permissions.end());
  }
  absl::StatusOr<std::vector<Delegation>> ActiveDelegationsInto(absl::string_view agent_id,
                                                                absl::Time now) override {
    return ActiveDelegationsIn(tables_, agent_id, now);
  }
  absl::StatusOr<const Agent*> FindAgentRef(absl::string_view agent_id) override {
    return AgentIn(tables_, agent_id);
  }
  absl::StatusOr<absl::Span<const Permission>> PermissionsSpan(
      absl::string_view agent_id) override {
    return PermissionsIn(tables_, agent_id);
  }
  absl::StatusOr<absl::Span<const Delegation>> ActiveDelegationsIntoSpan(absl::string_view agent_id,
                                                                         absl::Time now) override {
    return ActiveDelegationsSpanIn(tables_, agent_id, now, kept_delegations_);
  }
  absl::StatusOr<std::optional<ApprovalRequest>> FindOpenApproval(absl::string_view agent_id,
                                                                  absl::string_view action,
                                                                  absl::string_view resource,
                                                                  absl::string_view arguments_hash,
                                                                  absl::Time now) override {
    return FindOpenApprovalIn(tables_, agent_id, action, resource, arguments_hash, now);
  }
  absl::StatusOr<int64_t> CountPendingApprovals(absl::string_view agent_id, absl::Time now,
                                                int64_t up_to) override {
    return CountPendingApprovalsIn(tables_, agent_id, now, up_to);
  }
  absl::StatusOr<std::optional<SigningKey>> FindActiveSigningKey(absl::string_view kid) override {
    return ActiveSigningKeyIn(tables_, kid);
  }
  absl::StatusOr<bool> IsTokenIdRevoked(absl::string_view jti) override {
    return tables_.revoked_token_ids->contains(jti);
  }

 protected:
  MemoryPolicyStore& store_;
  Tables tables_;

 private:
  std::vector<std::vector<Delegation>> kept_delegations_;
};

class MemoryReadSnapshot final : public MemoryPolicyView<ReadSnapshot> {
 public:
  using MemoryPolicyView::MemoryPolicyView;

  ~MemoryReadSnapshot() override {
    absl::MutexLock lock(&store_.mu_);
    tables_ = Tables();
  }

  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    return RateCountIn(*tables_.rates, RateKey(std::string(agent_id), std::string(permission_id)),
                       window_start_unix);
  }
};

// Reads the state as of its start plus its own writes. Approval writes go to a private copy of
// the (small, rarely written) approval table; rate spends, which an Authorize makes on the hot
// path, are kept as counts to add at Commit, so a spend never copies the counter table.
class MemoryWriteTransaction : public MemoryPolicyView<WriteTransaction> {
 public:
  using MemoryPolicyView::MemoryPolicyView;

  ~MemoryWriteTransaction() override {
    absl::MutexLock lock(&store_.mu_);
    tables_ = Tables();
    if (!finished_) store_.no_transaction_open_ = true;
  }

  absl::StatusOr<int64_t> RateCount(absl::string_view agent_id, absl::string_view permission_id,
                                    int64_t window_start_unix) override {
    const RateKey key{std::string(agent_id), std::string(permission_id)};
    auto committed = tables_.rates->find(key);
    // The committed windows as this transaction's spends leave them, forgetting included.
    RateWindows windows;
    if (committed != tables_.rates->end()) windows = committed->second;
    for (const RateSpend& spend : spent_) {
      if (spend.agent_id == key.first && spend.permission_id == key.second) Count(windows, spend);
    }
    return CountIn(windows, window_start_unix);
  }

  absl::Status SpendRate(const RateSpend& spend) override {
    if (finished_) return Finished();
    spent_.push_back(spend);
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> OpenApproval(const ApprovalToOpen& approval,
                                           absl::Time now) override {
    if (finished_) return Finished();
    absl::MutexLock lock(&store_.mu_);
    ApprovalEntry entry;
    ApprovalRequest& request = entry.request;
    request.id = store_.NextApprovalId();
    request.agent_id = approval.agent_id;
    request.action = approval.action;
    request.resource = approval.resource;
    request.arguments_hash = approval.arguments_hash;
    request.quorum = approval.quorum;
    request.status = ApprovalStatus::kPending;
    request.expires_at = approval.expires_at;
    request.created_at = now;
    ApprovalTable& approvals = Writable(tables_.approvals);
    approvals
        .by_call[CallKey(request.agent_id, request.action, request.resource,
                         request.arguments_hash)]
        .push_back(request.id);
    approvals.in_creation_order.push_back(request.id);
    std::string id = request.id;
    approvals.by_id.emplace(id, std::move(entry));
    return id;
  }

  absl::Status UseApproval(absl::string_view approval_id, absl::Time now) override {
    if (finished_) return Finished();
    absl::MutexLock lock(&store_.mu_);
    auto it = tables_.approvals->by_id.find(approval_id);
    if (it == tables_.approvals->by_id.end()) return NotFound("approval request", approval_id);
    const ApprovalRequest& request = it->second.request;
    const ApprovalStatus status =
        ApprovalExpiredAt(request, now) ? ApprovalStatus::kExpired : request.status;
    if (status != ApprovalStatus::kApproved) {
      return absl::FailedPreconditionError(absl::StrCat(
          "approval ", approval_id, " is ", ApprovalStatusName(status), ", not approved"));
    }
    Writable(tables_.approvals).by_id.at(approval_id).request.status = ApprovalStatus::kUsed;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<std::string>> ApproversOf(absl::string_view approval_id) override {
    if (finished_) return Finished();
    absl::MutexLock lock(&store_.mu_);
    auto it = tables_.approvals->by_id.find(approval_id);
    if (it == tables_.approvals->by_id.end()) return NotFound("approval request", approval_id);
    return std::vector<std::string>(it->second.approvers.begin(), it->second.approvers.end());
  }

  absl::Status Commit() override {
    if (finished_) return Finished();
    absl::MutexLock lock(&store_.mu_);
    // Writers are serialised, so the store's state is still the one this transaction began on.
    Tables& current = store_.current_;
    current.approvals = tables_.approvals;
    // References and spans handed out point into the agent, permission and delegation tables:
    // those stay held until the transaction is destroyed.
    Tables spanned;
    spanned.agents = std::move(tables_.agents);
    spanned.permissions = std::move(tables_.permissions);
    spanned.delegations = std::move(tables_.delegations);
    tables_ = std::move(spanned);
    if (!spent_.empty()) {
      RateTable& rates = Writable(current.rates);
      for (const RateSpend& spend : spent_) {
        Count(rates[RateKey(spend.agent_id, spend.permission_id)], spend);
      }
    }
    store_.no_transaction_open_ = true;
    finished_ = true;
    return absl::OkStatus();
  }

 private:
  static absl::Status Finished() {
    return absl::FailedPreconditionError("the transaction has already committed");
  }

  std::vector<RateSpend> spent_;  // in the order they were made
  bool finished_ = false;
};

MemoryPolicyStore::MemoryPolicyStore() {
  current_.agents = std::make_shared<absl::flat_hash_map<std::string, AgentRecord>>();
  current_.signing_keys = std::make_shared<absl::flat_hash_map<std::string, SigningKey>>();
  current_.revoked_token_ids = std::make_shared<absl::flat_hash_set<std::string>>();
  current_.agent_by_token = std::make_shared<absl::flat_hash_map<std::string, std::string>>();
  current_.permissions =
      std::make_shared<absl::flat_hash_map<std::string, std::vector<Permission>>>();
  current_.delegations = std::make_shared<memory_store_internal::DelegationTable>();
  current_.approvals = std::make_shared<ApprovalTable>();
  current_.rates = std::make_shared<RateTable>();
}

absl::StatusOr<std::unique_ptr<ReadSnapshot>> MemoryPolicyStore::BeginRead() {
  Tables tables;
  {
    absl::MutexLock lock(&mu_);
    tables = current_;
  }
  return std::make_unique<MemoryReadSnapshot>(*this, std::move(tables));
}

absl::StatusOr<std::unique_ptr<WriteTransaction>> MemoryPolicyStore::BeginWrite() {
  Tables tables;
  {
    absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
    no_transaction_open_ = false;
    tables = current_;
  }
  return std::make_unique<MemoryWriteTransaction>(*this, std::move(tables));
}

std::string MemoryPolicyStore::NextId(absl::string_view prefix) {
  return absl::StrCat(prefix, next_id_++);
}

std::string MemoryPolicyStore::NextApprovalId() { return absl::StrFormat("apr_%016x", next_id_++); }

absl::Status MemoryPolicyStore::AddAgent(const Agent& agent) {
  if (agent.id.empty()) return absl::InvalidArgumentError("agent id: empty");
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  if (current_.agents->contains(agent.id)) {
    return absl::AlreadyExistsError(absl::StrCat("agent ", agent.id, " already exists"));
  }
  AgentRecord record;
  record.agent = agent;
  Writable(current_.agents).emplace(agent.id, std::move(record));
  return absl::OkStatus();
}

absl::Status MemoryPolicyStore::SetAgentStatus(absl::string_view agent_id, AgentStatus status) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  if (!current_.agents->contains(agent_id)) return NotFound("agent", agent_id);
  Writable(current_.agents).find(agent_id)->second.agent.status = status;
  return absl::OkStatus();
}

absl::Status MemoryPolicyStore::SetAgentExpiry(absl::string_view agent_id, absl::Time expires_at) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  if (!current_.agents->contains(agent_id)) return NotFound("agent", agent_id);
  Writable(current_.agents).find(agent_id)->second.agent.expires_at = expires_at;
  return absl::OkStatus();
}

absl::Status MemoryPolicyStore::SetAgentToken(absl::string_view agent_id,
                                              absl::string_view token_sha256,
                                              absl::Time previous_valid_until) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  if (!current_.agents->contains(agent_id)) return NotFound("agent", agent_id);
  auto owner = current_.agent_by_token->find(token_sha256);
  if (owner != current_.agent_by_token->end() && owner->second != agent_id) {
    return absl::AlreadyExistsError("token hash already belongs to another agent");
  }
  AgentRecord& record = Writable(current_.agents).find(agent_id)->second;
  auto& agent_by_token = Writable(current_.agent_by_token);
  // Only the current and the previous hash are ever indexed.
  agent_by_token.erase(record.previous_token_sha256);
  record.previous_token_sha256 = std::move(record.token_sha256);
  record.previous_valid_until = previous_valid_until;
  record.token_sha256 = std::string(token_sha256);
  agent_by_token[record.token_sha256] = record.agent.id;
  return absl::OkStatus();
}

absl::StatusOr<std::string> MemoryPolicyStore::AddPermission(const Permission& permission) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  if (!current_.agents->contains(permission.agent_id))
    return NotFound("agent", permission.agent_id);
  Permission stored = permission;
  if (stored.id.empty()) stored.id = NextId("perm_");
  std::string id = stored.id;
  Writable(current_.permissions)[stored.agent_id].push_back(std::move(stored));
  return id;
}

absl::Status MemoryPolicyStore::RemovePermission(absl::string_view permission_id) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  for (const auto& [agent_id, permissions] : *current_.permissions) {
    auto has_id = [&](const Permission& p) { return p.id == permission_id; };
    if (std::none_of(permissions.begin(), permissions.end(), has_id)) continue;
    std::vector<Permission>& writable = Writable(current_.permissions).at(agent_id);
    writable.erase(std::remove_if(writable.begin(), writable.end(), has_id), writable.end());
    return absl::OkStatus();
  }
  return NotFound("permission", permission_id);
}

absl::StatusOr<std::string> MemoryPolicyStore::AddDelegation(const Delegation& delegation) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  for (const std::string& agent_id : {delegation.from_agent_id, delegation.to_agent_id}) {
    if (!current_.agents->contains(agent_id)) return NotFound("agent", agent_id);
  }
  Delegation stored = delegation;
  if (stored.id.empty()) stored.id = NextId("dlg_");
  if (current_.delegations->to_agent_of.contains(stored.id)) {
    return absl::AlreadyExistsError(absl::StrCat("delegation ", stored.id, " already exists"));
  }
  std::string id = stored.id;
  memory_store_internal::DelegationTable& delegations = Writable(current_.delegations);
  delegations.to_agent_of[id] = stored.to_agent_id;
  delegations.into[stored.to_agent_id].push_back(std::move(stored));
  return id;
}

absl::Status MemoryPolicyStore::RevokeDelegation(absl::string_view delegation_id) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  auto to_agent = current_.delegations->to_agent_of.find(delegation_id);
  if (to_agent == current_.delegations->to_agent_of.end()) {
    return NotFound("delegation", delegation_id);
  }
  std::string to_agent_id = to_agent->second;
  for (Delegation& delegation : Writable(current_.delegations).into.at(to_agent_id)) {
    if (delegation.id == delegation_id) delegation.status = DelegationStatus::kRevoked;
  }
  return absl::OkStatus();
}

absl::StatusOr<ApprovalRequest> MemoryPolicyStore::VoteOnApproval(absl::string_view approval_id,
                                                                  absl::string_view approver,
                                                                  bool approve, absl::Time now) {
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  auto found = current_.approvals->by_id.find(approval_id);
  if (found == current_.approvals->by_id.end()) return NotFound("approval request", approval_id);
  absl::StatusOr<Vote> vote = JudgeVote(
      found->second.request, found->second.voters.contains(approver), approver, approve, now);
  if (!vote.ok()) return vote.status();
  ApprovalEntry& entry = Writable(current_.approvals).by_id.at(approval_id);
  if (vote->record) {
    entry.voters.insert(std::string(approver));
    if (approve) entry.approvers.insert(std::string(approver));
  }
  entry.request = vote->approval;
  if (!vote->answer.ok()) return vote->answer;
  return vote->approval;
}

absl::Status MemoryPolicyStore::ApproveRequest(absl::string_view approval_id,
                                               absl::string_view approver, absl::Time now) {
  return VoteOnApproval(approval_id, approver, /*approve=*/true, now).status();
}

absl::Status MemoryPolicyStore::DenyRequest(absl::string_view approval_id,
                                            absl::string_view approver, absl::Time now) {
  return VoteOnApproval(approval_id, approver, /*approve=*/false, now).status();
}

absl::Status MemoryPolicyStore::PutSigningKey(const SigningKey& key) {
  if (key.kid.empty()) return absl::InvalidArgumentError("signing key kid: empty");
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  Writable(current_.signing_keys)[key.kid] = key;
  return absl::OkStatus();
}

absl::Status MemoryPolicyStore::RevokeTokenId(absl::string_view jti) {
  if (absl::Status s = CheckTokenId(jti); !s.ok()) return s;
  absl::MutexLock lock(&mu_, absl::Condition(&no_transaction_open_));
  Writable(current_.revoked_token_ids).insert(std::string(jti));
  return absl::OkStatus();
}

std::vector<ApprovalRequest> MemoryPolicyStore::ApprovalRequests() {
  absl::MutexLock lock(&mu_);
  std::vector<ApprovalRequest> requests;
  for (const std::string& id : current_.approvals->in_creation_order) {
    requests.push_back(current_.approvals->by_id.at(id).request);
  }
  return requests;
}

}  // namespace verdict
