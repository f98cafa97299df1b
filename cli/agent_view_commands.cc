// What an agent may do (issue 19 item 5): `agents permissions`, `agents delegations` and
// `agents effective`, over AdminService's lists.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/explain.h"
#include "cli/output.h"

namespace verdict {
namespace cli {

namespace {

constexpr char kCut[] = "verdict: the list stops at 1000; more are not shown";

// Each grant as explain writes it.
std::string GrantsText(const google::protobuf::RepeatedPtrField<v1::Grant>& grants) {
  std::vector<std::string> texts;
  for (const v1::Grant& grant : grants) {
    texts.push_back(GrantText(grant));
  }
  return absl::StrJoin(texts, "; ");
}

}  // namespace

int ListAgentPermissions(Session& session) {
  v1::ListAgentPermissionsRequest request;
  request.set_agent_id(session.options().Get("id"));
  v1::ListAgentPermissionsResponse response;
  int code = session.CallAdmin(&AdminStub::ListAgentPermissions, request, &response);
  if (code != kExitOk) return code;
  session.PrintList(response, response.permissions(), "");
  if (response.truncated()) session.Note(kCut);
  return kExitOk;
}

int ListAgentDelegations(Session& session) {
  v1::ListAgentDelegationsRequest request;
  request.set_agent_id(session.options().Get("id"));
  v1::ListAgentDelegationsResponse response;
  int code = session.CallAdmin(&AdminStub::ListAgentDelegations, request, &response);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
  } else {
    // One table: which way each delegation goes, then the delegation.
    std::vector<OutputValue> rows;
    for (const auto& [direction, delegations] :
         {std::make_pair("in", &response.delegations_in()),
          std::make_pair("out", &response.delegations_out())}) {
      for (const v1::Delegation& delegation : *delegations) {
        OutputValue row = OutputValue::Record({{"direction", OutputValue::Text(direction)}});
        const OutputValue fields = OutputOf(delegation);
        for (const auto& [name, value] : fields.fields()) row.Add(name, value);
        rows.push_back(std::move(row));
      }
    }
    session.PrintRows(rows);
  }
  if (response.truncated()) session.Note(kCut);
  return kExitOk;
}

int ListEffectivePermissions(Session& session) {
  v1::ListEffectivePermissionsRequest request;
  request.set_agent_id(session.options().Get("id"));
  v1::ListEffectivePermissionsResponse response;
  int code = session.CallAdmin(&AdminStub::ListEffectivePermissions, request, &response);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
  } else if (response.liveness() != v1::REASON_CODE_ALLOWED) {
    session.out() << response.agent().id()
                  << " holds nothing now: " << OutputOf(response).Find("liveness")->scalar()
                  << "\n";
  } else {
    // One row per permission: what it covers, where it comes from, what else must cover a call.
    std::vector<OutputValue> rows;
    for (const v1::EffectivePermission& held : response.permissions()) {
      const OutputValue grant = OutputOf(held.grant());
      OutputValue row = OutputValue::Record();
      row.Add("effect", *grant.Find("effect"))
          .Add("resource", *grant.Find("resource"))
          .Add("actions", *grant.Find("actions"))
          .Add("permission", *grant.Find("permission_id"))
          .Add("via", OutputValue::Text(DelegationPathText(held.via())))
          .Add("within", OutputValue::Text(GrantsText(held.within())))
          .Add("excluded_by", OutputValue::Text(GrantsText(held.excluded_by())))
          .Add("constraints", *grant.Find("constraints_json"));
      rows.push_back(std::move(row));
    }
    session.PrintRows(rows);
  }
  if (response.permissions_truncated()) session.Note(kCut);
  return kExitOk;
}

}  // namespace cli
}  // namespace verdict
