// What every store does to an admin call apart from its database (app/policy_admin.h): the new
// rows as decision/admin/new_rows.h makes them, with random values from the CSPRNG, in their
// stored form (whole microseconds, canonical constraints, lent permissions as JSON); pages; and
// what a lookup inside the call's transaction found. Shared by the SQLite and PostgreSQL stores,
// so both refuse the same calls with the same messages and write the same rows.
//
//   absl::StatusOr<AgentToCreate> agent = PrepareNewAgent(request, StoredTime(clock()));
//   if (!agent.ok()) return agent.status();  // INVALID_ARGUMENT: nothing was written
//   ... in the transaction: CheckUnused(Found(lookup(id)), "agent", id), insert agent->agent ...
#ifndef VERDICT_APP_ADMIN_INPUT_H_
#define VERDICT_APP_ADMIN_INPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/change_rules.h"
#include "decision/admin/input_rules.h"
#include "decision/admin/new_rows.h"
#include "decision/types.h"
#include "store/admin_types.h"

namespace verdict {

// Times as the stores keep them (whole microseconds), so what a write returns equals what a
// later read returns.
absl::Time StoredTime(absl::Time time);

// The page size a request asks for; INVALID_ARGUMENT outside 0 (the default) to kMaxPageSize.
absl::StatusOr<int> PageSizeOf(const PageRequest& page);

// Where a page of approvals starts: after (created_at, id) in keyset order. The first page
// starts before every request.
struct ApprovalPageStart {
  int64_t after_created_micros;
  std::string after_id;
};
absl::StatusOr<ApprovalPageStart> ParseApprovalPageToken(absl::string_view page_token);
std::string ApprovalPageToken(const ApprovalRequest& last);

// NewAgentRow with the CSPRNG, its expiry in whole microseconds.
absl::StatusOr<AgentToCreate> PrepareNewAgent(const NewAgent& request, absl::Time now);

// NewPermissionRow with the CSPRNG, its constraints in canonical form.
absl::StatusOr<Permission> PrepareNewPermission(const NewPermission& request, absl::Time now);

// NewDelegationRow with the CSPRNG and its expiry in whole microseconds, its lent permissions as
// stored, and the request as the delegation rules check it (constraints canonical).
struct DelegationToCreate {
  Delegation delegation;
  std::string lent_json;
  NewDelegation checked;
};
absl::StatusOr<DelegationToCreate> PrepareNewDelegation(const NewDelegation& request,
                                                        absl::Time now);

// NewPolicyRows with the CSPRNG, in stored form: times in whole microseconds, canonical
// constraints and lent permissions as stored.
struct PolicyToImport {
  std::vector<StoredAgent> agents;  // token_sha256 always 32 bytes
  std::vector<Permission> permissions;
  std::vector<Delegation> delegations;
  std::vector<std::string> lent_json;  // per delegation
};
absl::StatusOr<PolicyToImport> PreparePolicyImport(const PolicyContents& policy, absl::Time now);

// The row a lookup found, or NOT_FOUND naming it ("agent agt_1 does not exist").
template <typename Row>
absl::StatusOr<Row> ExistingRow(absl::StatusOr<std::optional<Row>> found, absl::string_view what,
                                absl::string_view id) {
  if (!found.ok()) return found.status();
  if (!found->has_value()) {
    return absl::NotFoundError(absl::StrCat(what, " ", id, " does not exist"));
  }
  return **std::move(found);
}

// Whether a lookup found a row.
template <typename Row>
absl::StatusOr<bool> Found(absl::StatusOr<std::optional<Row>> found) {
  if (!found.ok()) return found.status();
  return found->has_value();
}

// ALREADY_EXISTS naming the row when `in_use`.
absl::Status CheckUnused(absl::StatusOr<bool> in_use, absl::string_view what, absl::string_view id);

}  // namespace verdict

#endif  // VERDICT_APP_ADMIN_INPUT_H_
