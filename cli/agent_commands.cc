#include <string>

#include "absl/strings/ascii.h"
#include "absl/time/time.h"
#include "cli/commands.h"
#include "cli/option_values.h"
#include "decision/types.h"
#include "proto/enum_names.h"
#include "server/agent_text_proto.h"

namespace verdict {
namespace cli {

int CreateAgent(Session& session) {
  const ParsedOptions& o = session.options();
  v1::CreateAgentRequest request;
  request.set_owner(o.Get("owner"));
  request.set_name(o.Get("name"));
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    if (o.Has(column.name)) SetAgentText(request, column.name, o.Get(column.name));
  }
  request.set_id(o.Get("id"));
  std::string kind = absl::AsciiStrToUpper(o.Get("kind"));
  v1::AgentKind parsed_kind;
  if (!ParseShortEnumName(kind, &parsed_kind) || parsed_kind == v1::AGENT_KIND_UNSPECIFIED) {
    return session.UsageError("--kind: one of autonomous, delegated, service");
  }
  request.set_kind(parsed_kind);
  if (o.Has("expires_at") && !ParseTimestamp(o.Get("expires_at"), request.mutable_expires_at())) {
    return session.UsageError("--expires_at: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  v1::CreateAgentResponse response;
  int code = session.CallAdmin(&AdminStub::CreateAgent, request, &response);
  if (code != kExitOk) return code;
  session.Print(response);
  if (session.format() == OutputFormat::kTable)
    session.Note("verdict: the token is shown only now; store it safely");
  return kExitOk;
}

int GetAgent(Session& session) {
  v1::GetAgentRequest request;
  request.set_agent_id(session.options().Get("id"));
  v1::GetAgentResponse response;
  int code = session.CallAdmin(&AdminStub::GetAgent, request, &response);
  if (code == kExitOk) session.Print(response.agent());
  return code;
}

int ListAgents(Session& session) {
  v1::ListAgentsRequest request;
  if (int code = ReadPageOptions(session, request); code != kExitOk) return code;
  v1::ListAgentsResponse response;
  int code = session.CallAdmin(&AdminStub::ListAgents, request, &response);
  if (code == kExitOk) session.PrintList(response, response.agents(), response.next_page_token());
  return code;
}

namespace {

// Suspend, reactivate and revoke differ only in the method; each prints the agent as it now is.
template <typename Request, typename Response>
int SetAgentStatus(Session& session, grpc::Status (AdminStub::*method)(grpc::ClientContext*,
                                                                       const Request&, Response*)) {
  Request request;
  request.set_agent_id(session.options().Get("id"));
  Response response;
  int code = session.CallAdmin(method, request, &response);
  if (code == kExitOk) session.Print(response.agent());
  return code;
}

}  // namespace

int SuspendAgent(Session& session) { return SetAgentStatus(session, &AdminStub::SuspendAgent); }

int ReactivateAgent(Session& session) {
  return SetAgentStatus(session, &AdminStub::ReactivateAgent);
}

int RevokeAgent(Session& session) { return SetAgentStatus(session, &AdminStub::RevokeAgent); }

int RotateToken(Session& session) {
  v1::RotateTokenRequest request;
  request.set_agent_id(session.options().Get("id"));
  absl::Duration grace;
  if (!absl::ParseDuration(session.options().Get("grace"), &grace) ||
      grace < absl::ZeroDuration() || grace == absl::InfiniteDuration()) {
    return session.UsageError("--grace: a duration such as 0s, 900ms, 10m or 24h");
  }
  const int64_t seconds = absl::ToInt64Seconds(grace);
  request.mutable_grace()->set_seconds(seconds);
  request.mutable_grace()->set_nanos(
      static_cast<int32_t>(absl::ToInt64Nanoseconds(grace - absl::Seconds(seconds))));
  v1::RotateTokenResponse response;
  int code = session.CallAdmin(&AdminStub::RotateToken, request, &response);
  if (code != kExitOk) return code;
  session.Print(response);
  if (session.format() == OutputFormat::kTable) {
    session.Note("verdict: the new token is shown only now; store it safely");
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace verdict
