#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "cli/commands.h"
#include "cli/option_values.h"

namespace verdict {
namespace cli {

namespace {

// Fills a permission from --resource, --actions and --constraints (and --effect when asked).
int PermissionSpecFromOptions(Session& session, bool with_effect, v1::PermissionSpec* spec) {
  const ParsedOptions& o = session.options();
  spec->set_resource(o.Get("resource"));
  for (const std::string& action : SplitList(o.Get("actions"))) spec->add_actions(action);
  spec->set_constraints_json(o.Get("constraints"));
  if (!with_effect) return kExitOk;
  const std::string effect = absl::AsciiStrToLower(o.Get("effect"));
  if (effect == "allow") {
    spec->set_effect(v1::EFFECT_ALLOW);
  } else if (effect == "deny") {
    spec->set_effect(v1::EFFECT_DENY);
  } else {
    return session.UsageError("--effect: allow or deny");
  }
  return kExitOk;
}

}  // namespace

int GrantPermission(Session& session) {
  v1::GrantPermissionRequest request;
  request.set_agent_id(session.options().Get("agent"));
  int code = PermissionSpecFromOptions(session, /*with_effect=*/true, request.mutable_permission());
  if (code != kExitOk) return code;
  v1::GrantPermissionResponse response;
  code = session.CallAdmin(&AdminStub::GrantPermission, request, &response);
  if (code == kExitOk) session.Print(response.permission());
  return code;
}

int RevokePermission(Session& session) {
  v1::RevokePermissionRequest request;
  request.set_permission_id(session.options().Get("id"));
  v1::RevokePermissionResponse response;
  int code = session.CallAdmin(&AdminStub::RevokePermission, request, &response);
  if (code == kExitOk) session.PrintDone(response, "revoked", request.permission_id());
  return code;
}

int CreateDelegation(Session& session) {
  const ParsedOptions& o = session.options();
  v1::CreateDelegationRequest request;
  v1::DelegationSpec* spec = request.mutable_delegation();
  spec->set_from_agent_id(o.Get("from"));
  spec->set_to_agent_id(o.Get("to"));
  uint32_t max_depth = 0;
  if (!absl::SimpleAtoi(o.Get("max_depth"), &max_depth) || max_depth == 0) {
    return session.UsageError("--max_depth: a number of links, 1 or more");
  }
  spec->set_max_depth(max_depth);
  if (o.Has("expires_at") && !ParseTimestamp(o.Get("expires_at"), spec->mutable_expires_at())) {
    return session.UsageError("--expires_at: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  int code = PermissionSpecFromOptions(session, /*with_effect=*/false, spec->add_permissions());
  if (code != kExitOk) return code;
  v1::CreateDelegationResponse response;
  code = session.CallAdmin(&AdminStub::CreateDelegation, request, &response);
  if (code == kExitOk) session.Print(response.delegation());
  return code;
}

int RevokeDelegation(Session& session) {
  v1::RevokeDelegationRequest request;
  request.set_delegation_id(session.options().Get("id"));
  v1::RevokeDelegationResponse response;
  int code = session.CallAdmin(&AdminStub::RevokeDelegation, request, &response);
  if (code == kExitOk) session.PrintDone(response, "revoked", request.delegation_id());
  return code;
}

}  // namespace cli
}  // namespace verdict
