#include "cli/commands.h"
#include "cli/explain.h"
#include "proto/enum_names.h"

namespace verdict {
namespace cli {

int Check(Session& session) {
  const ParsedOptions& o = session.options();
  if (o.Has("agent") == o.Has("token")) {
    return session.UsageError("check: give exactly one of --agent=ID and --token=TOKEN");
  }
  v1::AuthorizeRequest request;
  if (o.Has("agent")) {
    request.mutable_subject()->set_agent_id(o.Get("agent"));
  } else {
    request.mutable_subject()->set_token(o.Get("token"));
  }
  request.set_action(o.Get("action"));
  request.set_resource(o.Get("resource"));
  request.mutable_context()->set_arguments_json(o.Get("args"));
  request.mutable_context()->set_client_ip(o.Get("ip"));
  request.mutable_context()->set_request_id(o.Get("request_id"));
  request.mutable_context()->set_dpop_proof(o.Get("dpop"));
  request.mutable_context()->set_http_method(o.Get("http_method"));
  request.mutable_context()->set_http_uri(o.Get("http_uri"));
  if (o.Switch("explain")) {
    // Simulate decides as Authorize does on the same data, without side effects, and says why.
    v1::SimulateRequest simulate;
    *simulate.mutable_request() = request;
    v1::SimulateResponse simulation;
    int code = session.Simulate(simulate, &simulation);
    if (code != kExitOk) return code;
    if (session.format() != OutputFormat::kTable) {
      session.Print(simulation);
    } else {
      session.out() << ExplainDecision(simulation);
    }
    return simulation.decision().verdict() == v1::VERDICT_ALLOW ? kExitOk : kExitNegative;
  }
  v1::AuthorizeResponse response;
  int code = session.Authorize(request, &response);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
  } else {
    session.out() << DecisionLine(response) << "\n";
  }
  return response.verdict() == v1::VERDICT_ALLOW ? kExitOk : kExitNegative;
}

}  // namespace cli
}  // namespace verdict
