#include "app/admin_input.h"

#include <limits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crypto/token.h"
#include "store/ids.h"
#include "store/policy_encoding.h"

namespace verdict {
namespace {

class CsprngRandomness final : public RowRandomness {
 public:
  std::string NewId(absl::string_view prefix) override { return verdict::NewId(prefix); }
  std::string NewAgentToken() override { return verdict::NewAgentToken(); }
  std::string RandomBytes(size_t n) override { return verdict::RandomBytes(n); }
};

// Constraints in their stored (canonical) form, so equal constraints read back equal.
absl::Status CanonicalizeConstraints(std::string& constraints_json) {
  absl::StatusOr<std::string> canonical = CanonicalConstraintsJson(constraints_json);
  if (!canonical.ok()) return canonical.status();
  constraints_json = *std::move(canonical);
  return absl::OkStatus();
}

absl::Status CanonicalizeLent(std::vector<LentPermission>& lent) {
  for (LentPermission& permission : lent) {
    if (absl::Status s = CanonicalizeConstraints(permission.constraints_json); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// The random values of new rows, from the CSPRNG.
RowRandomness& Csprng() {
  static CsprngRandomness* const csprng = new CsprngRandomness();
  return *csprng;
}

}  // namespace

absl::Time StoredTime(absl::Time time) { return TimeFromMicros(TimeToMicros(time)); }

absl::StatusOr<int> PageSizeOf(const PageRequest& page) {
  if (page.page_size == 0) return kDefaultPageSize;
  if (page.page_size < 0 || page.page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size: must be 0 (the default) to ", kMaxPageSize));
  }
  return page.page_size;
}

absl::StatusOr<ApprovalPageStart> ParseApprovalPageToken(absl::string_view page_token) {
  ApprovalPageStart start{std::numeric_limits<int64_t>::min(), ""};
  if (page_token.empty()) return start;
  std::pair<std::string, std::string> parts = absl::StrSplit(page_token, '/');
  if (!absl::SimpleAtoi(parts.first, &start.after_created_micros) || parts.second.empty()) {
    return absl::InvalidArgumentError("page_token: not a token from a previous page");
  }
  start.after_id = std::move(parts.second);
  return start;
}

std::string ApprovalPageToken(const ApprovalRequest& last) {
  return absl::StrCat(absl::ToUnixMicros(last.created_at), "/", last.id);
}

absl::StatusOr<AgentToCreate> PrepareNewAgent(const NewAgent& request, absl::Time now) {
  NewAgent stored = request;
  stored.expires_at = StoredTime(request.expires_at);
  return NewAgentRow(stored, now, Csprng());
}

absl::StatusOr<Permission> PrepareNewPermission(const NewPermission& request, absl::Time now) {
  absl::StatusOr<Permission> row = NewPermissionRow(request, now, Csprng());
  if (!row.ok()) return row.status();
  if (absl::Status s = CanonicalizeConstraints(row->constraints_json); !s.ok()) return s;
  return row;
}

absl::StatusOr<DelegationToCreate> PrepareNewDelegation(const NewDelegation& request,
                                                        absl::Time now) {
  NewDelegation stored = request;
  stored.expires_at = StoredTime(request.expires_at);
  absl::StatusOr<Delegation> row = NewDelegationRow(stored, now, Csprng());
  if (!row.ok()) return row.status();
  DelegationToCreate created;
  created.delegation = *std::move(row);
  if (absl::Status s = CanonicalizeLent(created.delegation.permissions); !s.ok()) return s;
  absl::StatusOr<std::string> lent_json = EncodeLentPermissions(created.delegation.permissions);
  if (!lent_json.ok()) return lent_json.status();
  created.lent_json = *std::move(lent_json);
  created.checked = request;
  created.checked.permissions = created.delegation.permissions;
  return created;
}

absl::StatusOr<PolicyToImport> PreparePolicyImport(const PolicyContents& policy, absl::Time now) {
  absl::StatusOr<PolicyRows> rows = NewPolicyRows(policy, now, Csprng());
  if (!rows.ok()) return rows.status();
  PolicyToImport prepared;
  prepared.agents = std::move(rows->agents);
  prepared.permissions = std::move(rows->permissions);
  prepared.delegations = std::move(rows->delegations);
  for (StoredAgent& stored : prepared.agents) {
    if (!stored.previous_token_sha256.empty()) {
      stored.previous_token_expires_at = StoredTime(stored.previous_token_expires_at);
    }
    stored.agent.expires_at = StoredTime(stored.agent.expires_at);
  }
  for (Permission& permission : prepared.permissions) {
    if (absl::Status s = CanonicalizeConstraints(permission.constraints_json); !s.ok()) return s;
  }
  prepared.lent_json.reserve(prepared.delegations.size());
  for (Delegation& delegation : prepared.delegations) {
    if (absl::Status s = CanonicalizeLent(delegation.permissions); !s.ok()) return s;
    absl::StatusOr<std::string> lent_json = EncodeLentPermissions(delegation.permissions);
    if (!lent_json.ok()) return lent_json.status();
    prepared.lent_json.push_back(*std::move(lent_json));
  }
  return prepared;
}

absl::Status CheckUnused(absl::StatusOr<bool> in_use, absl::string_view what,
                         absl::string_view id) {
  if (!in_use.ok()) return in_use.status();
  if (*in_use) return absl::AlreadyExistsError(absl::StrCat(what, " ", id, " already exists"));
  return absl::OkStatus();
}

}  // namespace verdict
