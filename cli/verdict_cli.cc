#include "cli/verdict_cli.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/time_util.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "common/admin_limits.h"
#include "common/build_info.h"
#include "server/admin_secret.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

using AdminStub = v1::AdminService::Stub;
using google::protobuf::Message;

// verdictd's default admin listener, next to its default database (./verdict.db).
constexpr char kDefaultAdminAddress[] = "unix:verdict.db.admin.sock";
constexpr char kDefaultDecisionAddress[] = "127.0.0.1:50051";

constexpr char kExitCodesHelp[] =
    "Exit codes:\n"
    "  0  done (check: ALLOW; log verify: the chain is intact)\n"
    "  1  usage error (unknown subcommand or option, bad value, no admin secret)\n"
    "  2  a negative answer (check: DENY or NEEDS_APPROVAL; log verify: the chain is broken)\n"
    "  3  refused by the server (invalid argument, not found, already exists, failed "
    "precondition)\n"
    "  4  no answer (unreachable, unavailable, bad admin credential, throttled, internal "
    "error)\n";

// Options every admin subcommand takes, and those of `check`.
std::vector<OptionSpec> AdminConnectionOptions() {
  return {
      {"admin_addr", "ADDR", "verdictd's admin listener (unix:PATH or host:port)", Need::kOptional,
       kDefaultAdminAddress},
      {"admin_secret_file", "PATH",
       absl::StrCat("file holding the admin secret (else $", kAdminSecretEnv, ")")},
      {"json", "", "print the answer as JSON", Need::kSwitch},
      {"timeout", "DURATION", "how long to wait for the answer", Need::kOptional, "10s"},
  };
}

std::vector<OptionSpec> DecisionConnectionOptions() {
  return {
      {"addr", "ADDR", "verdictd's decision listener (host:port or unix:PATH)", Need::kOptional,
       kDefaultDecisionAddress},
      {"json", "", "print the answer as JSON", Need::kSwitch},
      {"timeout", "DURATION", "how long to wait for the answer", Need::kOptional, "10s"},
  };
}

// What one command line asks for, and how to reach the server and show the answer.
class Session {
 public:
  Session(const ParsedOptions& options, CliEnvironment& env) : options_(options), env_(env) {}

  const ParsedOptions& options() const { return options_; }
  std::ostream& out() { return env_.out; }
  std::istream& in() { return env_.in; }
  std::ostream& err() { return env_.err; }

  int UsageError(absl::string_view message) {
    env_.err << "verdict: " << message << "\n";
    return kExitUsage;
  }

  // Calls an AdminService method with the admin credential; on failure, says why on stderr.
  template <typename Request, typename Response>
  int CallAdmin(grpc::Status (AdminStub::*method)(grpc::ClientContext*, const Request&, Response*),
                const Request& request, Response* response) {
    std::string secret;
    if (int code = AdminSecret(&secret); code != kExitOk) return code;
    grpc::ClientContext context;
    if (int code = PrepareContext(&context); code != kExitOk) return code;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", secret));
    // A policy export comes back whole in one message (common/admin_limits.h).
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(kMaxAdminMessageBytes);
    arguments.SetMaxSendMessageSize(kMaxAdminMessageBytes);
    auto stub = v1::AdminService::NewStub(grpc::CreateCustomChannel(
        options_.Get("admin_addr"), grpc::InsecureChannelCredentials(), arguments));
    return Finish((stub.get()->*method)(&context, request, response));
  }

  int Authorize(const v1::AuthorizeRequest& request, v1::AuthorizeResponse* response) {
    grpc::ClientContext context;
    if (int code = PrepareContext(&context); code != kExitOk) return code;
    auto stub = v1::DecisionService::NewStub(
        grpc::CreateChannel(options_.Get("addr"), grpc::InsecureChannelCredentials()));
    return Finish(stub->Authorize(&context, request, response));
  }

  // The answer: JSON with --json, else the protobuf text form (one line per message when
  // `one_line`, for lists).
  void Print(const Message& message, bool one_line = false) {
    if (options_.Switch("json")) {
      google::protobuf::util::JsonPrintOptions json;
      json.preserve_proto_field_names = true;
      json.always_print_primitive_fields = true;
      std::string text;
      const auto printed = google::protobuf::util::MessageToJsonString(message, &text, json);
      if (printed.ok()) {
        env_.out << text << "\n";
        return;
      }
      // Never lose an answer (a new token is shown only once): the text form holds it all.
      env_.err << "verdict: cannot print the answer as JSON (" << printed.message().as_string()
               << "); printing it as text\n";
    }
    google::protobuf::TextFormat::Printer printer;
    printer.SetUseUtf8StringEscaping(true);  // "josé", not "jos\303\251"
    printer.SetSingleLineMode(one_line);
    std::string text;
    printer.PrintToString(message, &text);
    env_.out << text << (one_line ? "\n" : "");
  }

  // A list answer: with --json the whole response, else one line per item and the next page.
  template <typename Items>
  void PrintList(const Message& response, const Items& items, const std::string& next_page) {
    if (options_.Switch("json")) return Print(response);
    for (const auto& item : items) Print(item, /*one_line=*/true);
    if (!next_page.empty()) env_.out << "next_page_token: " << next_page << "\n";
  }

  // An answer with nothing in it: "{}" with --json, else what was done to what.
  void PrintDone(const Message& response, absl::string_view done, absl::string_view id) {
    if (options_.Switch("json")) return Print(response);
    env_.out << done << " " << id << "\n";
  }

  void Note(absl::string_view note) { env_.err << note << "\n"; }

 private:
  int AdminSecret(std::string* secret) {
    if (options_.Has("admin_secret_file")) {
      absl::StatusOr<std::string> from_file =
          ReadAdminSecretFile(options_.Get("admin_secret_file"));
      if (!from_file.ok()) return UsageError(from_file.status().message());
      *secret = *std::move(from_file);
      return kExitOk;
    }
    std::optional<std::string> from_env = env_.getenv(kAdminSecretEnv);
    const std::string stripped(absl::StripAsciiWhitespace(from_env.value_or("")));
    if (stripped.empty()) {
      return UsageError(absl::StrCat("no admin secret: set ", kAdminSecretEnv,
                                     " or pass --admin_secret_file=PATH"));
    }
    // Checked here as a file's is: a secret the server can never accept would only count as a
    // failed credential against every caller on this socket.
    if (absl::Status checked = CheckAdminSecret(stripped); !checked.ok()) {
      return UsageError(absl::StrCat(kAdminSecretEnv, ": ", checked.message()));
    }
    *secret = stripped;
    return kExitOk;
  }

  int PrepareContext(grpc::ClientContext* context) {
    absl::Duration timeout;
    if (!absl::ParseDuration(options_.Get("timeout"), &timeout) ||
        timeout <= absl::ZeroDuration() || timeout == absl::InfiniteDuration()) {
      return UsageError(absl::StrCat("--timeout: \"", options_.Get("timeout"),
                                     "\" is not a positive duration such as 10s"));
    }
    context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    return kExitOk;
  }

  int Finish(const grpc::Status& status) {
    if (status.ok()) return kExitOk;
    env_.err << "verdict: " << CodeName(status.error_code()) << ": " << status.error_message()
             << "\n";
    return ExitCodeForStatus(status.error_code());
  }

  static const char* CodeName(grpc::StatusCode code) {
    switch (code) {
      case grpc::StatusCode::INVALID_ARGUMENT:
        return "invalid argument";
      case grpc::StatusCode::NOT_FOUND:
        return "not found";
      case grpc::StatusCode::ALREADY_EXISTS:
        return "already exists";
      case grpc::StatusCode::FAILED_PRECONDITION:
        return "refused";
      case grpc::StatusCode::UNAUTHENTICATED:
        return "unauthenticated";
      case grpc::StatusCode::RESOURCE_EXHAUSTED:
        return "throttled";
      case grpc::StatusCode::UNAVAILABLE:
        return "unavailable";
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        return "timed out";
      case grpc::StatusCode::UNIMPLEMENTED:
        return "not served here";
      default:
        return "error";
    }
  }

  const ParsedOptions& options_;
  CliEnvironment& env_;
};

// --- Values on the command line ------------------------------------------------------------

bool ParseTimestamp(absl::string_view text, google::protobuf::Timestamp* timestamp) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &time, &error)) return false;
  // absl also reads "infinite-future" and "infinite-past", which are no times.
  if (time == absl::InfiniteFuture() || time == absl::InfinitePast()) return false;
  timestamp->set_seconds(absl::ToUnixSeconds(time));
  timestamp->set_nanos(static_cast<int32_t>(
      absl::ToInt64Nanoseconds(time - absl::FromUnixSeconds(absl::ToUnixSeconds(time)))));
  return true;
}

std::vector<std::string> SplitList(absl::string_view text) {
  return absl::StrSplit(text, ',', absl::SkipWhitespace());
}

// 1 to 1000 (what the admin plane serves at most), when given.
bool ParsePageSize(const ParsedOptions& options, uint32_t* page_size) {
  if (!options.Has("page_size")) return true;
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(options.Get("page_size"), &parsed) || parsed < 1 || parsed > 1000) {
    return false;
  }
  *page_size = static_cast<uint32_t>(parsed);
  return true;
}

// --- The commands -------------------------------------------------------------------------

struct Command {
  std::string group;  // "agents"; "" for a command of its own ("check")
  std::string name;   // "create"
  std::string summary;
  std::vector<OptionSpec> options;
  bool decision_port = false;  // check: the decision listener, not the admin one
  std::function<int(Session&)> run;
};

int CreateAgent(Session& session) {
  const ParsedOptions& o = session.options();
  v1::CreateAgentRequest request;
  request.set_owner(o.Get("owner"));
  request.set_name(o.Get("name"));
  request.set_description(o.Get("description"));
  request.set_id(o.Get("id"));
  std::string kind = absl::AsciiStrToUpper(o.Get("kind"));
  v1::AgentKind parsed_kind;
  if (!v1::AgentKind_Parse(kind, &parsed_kind) || parsed_kind == v1::AGENT_KIND_UNSPECIFIED) {
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
  if (!o.Switch("json")) session.Note("verdict: the token is shown only now; store it safely");
  return kExitOk;
}

int GetAgent(Session& session) {
  v1::GetAgentRequest request;
  request.set_agent_id(session.options().Get("id"));
  v1::Agent response;
  int code = session.CallAdmin(&AdminStub::GetAgent, request, &response);
  if (code == kExitOk) session.Print(response);
  return code;
}

int ListAgents(Session& session) {
  v1::ListAgentsRequest request;
  uint32_t page_size = 0;
  if (!ParsePageSize(session.options(), &page_size)) {
    return session.UsageError("--page_size: a number from 1 to 1000");
  }
  request.set_page_size(page_size);
  request.set_page_token(session.options().Get("page_token"));
  v1::ListAgentsResponse response;
  int code = session.CallAdmin(&AdminStub::ListAgents, request, &response);
  if (code == kExitOk) session.PrintList(response, response.agents(), response.next_page_token());
  return code;
}

// Suspend, reactivate and revoke differ only in the method.
std::function<int(Session&)> SetAgentStatus(grpc::Status (AdminStub::*method)(
    grpc::ClientContext*, const v1::AgentStatusRequest&, v1::Agent*)) {
  return [method](Session& session) {
    v1::AgentStatusRequest request;
    request.set_agent_id(session.options().Get("id"));
    v1::Agent response;
    int code = session.CallAdmin(method, request, &response);
    if (code == kExitOk) session.Print(response);
    return code;
  };
}

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
  if (!session.options().Switch("json")) {
    session.Note("verdict: the new token is shown only now; store it safely");
  }
  return kExitOk;
}

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

int GrantPermission(Session& session) {
  v1::GrantPermissionRequest request;
  request.set_agent_id(session.options().Get("agent"));
  int code = PermissionSpecFromOptions(session, /*with_effect=*/true, request.mutable_permission());
  if (code != kExitOk) return code;
  v1::Permission response;
  code = session.CallAdmin(&AdminStub::GrantPermission, request, &response);
  if (code == kExitOk) session.Print(response);
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
  v1::Delegation response;
  code = session.CallAdmin(&AdminStub::CreateDelegation, request, &response);
  if (code == kExitOk) session.Print(response);
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

int ListApprovals(Session& session) {
  v1::ListApprovalsRequest request;
  v1::ApprovalStatus status;
  if (!v1::ApprovalStatus_Parse(
          absl::StrCat("APPROVAL_STATUS_", absl::AsciiStrToUpper(session.options().Get("status"))),
          &status) ||
      status == v1::APPROVAL_STATUS_UNSPECIFIED) {
    return session.UsageError("--status: pending, approved, denied, expired or used");
  }
  request.set_status(status);
  uint32_t page_size = 0;
  if (!ParsePageSize(session.options(), &page_size)) {
    return session.UsageError("--page_size: a number from 1 to 1000");
  }
  request.set_page_size(page_size);
  request.set_page_token(session.options().Get("page_token"));
  v1::ListApprovalsResponse response;
  int code = session.CallAdmin(&AdminStub::ListApprovals, request, &response);
  if (code == kExitOk) {
    session.PrintList(response, response.approvals(), response.next_page_token());
  }
  return code;
}

std::function<int(Session&)> Vote(grpc::Status (AdminStub::*method)(grpc::ClientContext*,
                                                                    const v1::VoteRequest&,
                                                                    v1::ApprovalRequest*)) {
  return [method](Session& session) {
    v1::VoteRequest request;
    request.set_approval_id(session.options().Get("id"));
    request.set_approver(session.options().Get("approver"));
    v1::ApprovalRequest response;
    int code = session.CallAdmin(method, request, &response);
    if (code == kExitOk) session.Print(response);
    return code;
  };
}

constexpr char kDecisionLoggingOff[] =
    "verdict: decision logging is off: this verdictd records no decisions (start it with "
    "--decision_log)\n";

int QueryLog(Session& session) {
  const ParsedOptions& o = session.options();
  v1::QueryDecisionLogRequest request;
  request.set_agent_id(o.Get("agent"));
  if (o.Has("since") && !ParseTimestamp(o.Get("since"), request.mutable_since())) {
    return session.UsageError("--since: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  if (o.Has("until") && !ParseTimestamp(o.Get("until"), request.mutable_until())) {
    return session.UsageError("--until: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  // Compared as timestamps: nanoseconds overflow after 2262 (h42).
  if (o.Has("since") && o.Has("until") && request.until() <= request.since()) {
    return session.UsageError("--until: must be later than --since");
  }
  if (o.Has("verdict")) {
    v1::Verdict verdict;
    if (!v1::Verdict_Parse(absl::AsciiStrToUpper(o.Get("verdict")), &verdict) ||
        verdict == v1::VERDICT_UNSPECIFIED) {
      return session.UsageError("--verdict: allow, deny or needs_approval");
    }
    request.set_verdict(verdict);
  }
  uint32_t page_size = 0;
  if (!ParsePageSize(o, &page_size))
    return session.UsageError("--page_size: a number from 1 to 1000");
  request.set_page_size(page_size);
  request.set_page_token(o.Get("page_token"));
  v1::QueryDecisionLogResponse response;
  int code = session.CallAdmin(&AdminStub::QueryDecisionLog, request, &response);
  if (code != kExitOk) return code;
  session.PrintList(response, response.entries(), response.next_page_token());
  // On stderr: the list on stdout stays what scripts parse.
  if (response.logging_off()) session.err() << kDecisionLoggingOff;
  return code;
}

int VerifyLog(Session& session) {
  v1::VerifyDecisionLogResponse response;
  int code =
      session.CallAdmin(&AdminStub::VerifyDecisionLog, v1::VerifyDecisionLogRequest(), &response);
  if (code != kExitOk) return code;
  if (session.options().Switch("json")) {
    session.Print(response);
  } else if (response.logging_off() && response.intact() && response.rows_checked() == 0) {
    session.out() << "decision logging is off: nothing recorded, nothing to verify (start "
                     "verdictd with --decision_log)\n";
    return kExitOk;
  } else if (response.intact()) {
    session.out() << "intact: " << response.rows_checked() << " rows checked, " << response.runs()
                  << " runs (" << response.open_runs() << " open)\n";
  } else if (response.first_bad_seq() != 0) {
    session.out() << "broken at seq " << response.first_bad_seq() << ": " << response.problem()
                  << "\n";
  } else {
    // The chain holds; decisions are missing from runs (dropped, refused, or lost in a crash).
    session.out() << "gaps: " << response.gap_count() << " in " << response.runs() << " runs, "
                  << response.rows_checked() << " rows checked\n";
    for (const v1::DecisionLogGap& gap : response.gaps()) {
      session.out() << "  " << gap.problem() << "\n";
    }
  }
  if (response.logging_off()) session.err() << kDecisionLoggingOff;
  return response.intact() ? kExitOk : kExitNegative;
}

int ExportPolicy(Session& session) {
  v1::ExportPolicyResponse response;
  int code = session.CallAdmin(&AdminStub::ExportPolicy, v1::ExportPolicyRequest(), &response);
  if (code != kExitOk) return code;
  const std::string& path = session.options().Get("out");
  if (path == "-") {
    session.out() << response.policy_json() << "\n";
    return kExitOk;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!(file << response.policy_json() << "\n")) {
    return session.UsageError(absl::StrCat("--out: cannot write ", path));
  }
  return kExitOk;
}

// The document an option names: a file, a pipe (<(...), /dev/stdin), or - for standard input.
int ReadDocument(Session& session, const std::string& option, std::string* document) {
  const std::string& path = session.options().Get(option);
  std::ostringstream contents;
  if (path == "-") {
    contents << session.in().rdbuf();
  } else {
    // A directory opens and reads as nothing, which would be sent as an empty document.
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
      return session.UsageError(absl::StrCat("--", option, ": ", path, " is a directory"));
    }
    std::ifstream file(path, std::ios::binary);
    if (!file)
      return session.UsageError(
          absl::StrCat("--", option, ": cannot read ", path, ": ", std::strerror(errno)));
    contents << file.rdbuf();
  }
  *document = contents.str();
  return kExitOk;
}

int ImportPolicy(Session& session) {
  v1::ImportPolicyRequest request;
  if (int code = ReadDocument(session, "file", request.mutable_policy_json()); code != kExitOk) {
    return code;
  }
  if (request.policy_json().size() > static_cast<size_t>(kMaxPolicyDocumentBytes)) {
    return session.UsageError(absl::StrCat("--file: ", request.policy_json().size(),
                                           " bytes, more than the ", kMaxPolicyDocumentBytes >> 20,
                                           " MiB a policy document may have"));
  }
  v1::ImportPolicyResponse response;
  int code = session.CallAdmin(&AdminStub::ImportPolicy, request, &response);
  if (code != kExitOk) return code;
  if (session.options().Switch("json")) {
    session.Print(response);
  } else {
    // Zero counts too, which the text form would leave out.
    session.out() << "imported " << response.agents() << " agents, " << response.permissions()
                  << " permissions, " << response.delegations() << " delegations, "
                  << response.revoked_token_ids() << " revoked token ids\n";
  }
  return kExitOk;
}

int RevokeTokenId(Session& session) {
  const ParsedOptions& o = session.options();
  v1::RevokeTokenIdRequest request;
  request.set_jti(o.Get("jti"));
  if (!ParseTimestamp(o.Get("expires_at"), request.mutable_expires_at())) {
    return session.UsageError(
        "--expires_at: the token's exp as an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  v1::RevokeTokenIdResponse response;
  int code = session.CallAdmin(&AdminStub::RevokeTokenId, request, &response);
  if (code == kExitOk) session.PrintDone(response, "revoked token id", request.jti());
  return code;
}

// Add and rotate send the same two things: the JWK (from --jwk, a file or - for standard
// input) and its algorithms (--alg).
template <typename Request>
int SigningKeyFromOptions(Session& session, Request* request) {
  if (int code = ReadDocument(session, "jwk", request->mutable_jwk_json()); code != kExitOk) {
    return code;
  }
  for (const std::string& algorithm : SplitList(session.options().Get("alg"))) {
    request->add_allowed_algorithms(algorithm);
  }
  return kExitOk;
}

// Sends the key of --jwk and --alg with `method` (add or rotate); prints the key as it now is.
template <typename Request>
int SendSigningKey(Session& session,
                   grpc::Status (AdminStub::*method)(grpc::ClientContext*, const Request&,
                                                     v1::SigningKey*)) {
  Request request;
  if (int code = SigningKeyFromOptions(session, &request); code != kExitOk) return code;
  v1::SigningKey response;
  int code = session.CallAdmin(method, request, &response);
  if (code == kExitOk) session.Print(response);
  return code;
}

int RetireSigningKey(Session& session) {
  v1::RetireSigningKeyRequest request;
  request.set_kid(session.options().Get("kid"));
  v1::SigningKey response;
  int code = session.CallAdmin(&AdminStub::RetireSigningKey, request, &response);
  if (code == kExitOk) session.Print(response);
  return code;
}

int ListSigningKeys(Session& session) {
  v1::ListSigningKeysResponse response;
  int code =
      session.CallAdmin(&AdminStub::ListSigningKeys, v1::ListSigningKeysRequest(), &response);
  if (code == kExitOk) session.PrintList(response, response.keys(), "");
  return code;
}

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
  v1::AuthorizeResponse response;
  int code = session.Authorize(request, &response);
  if (code != kExitOk) return code;
  if (o.Switch("json")) {
    session.Print(response);
  } else {
    session.out() << v1::Verdict_Name(response.verdict()) << " "
                  << v1::ReasonCode_Name(response.reason()) << ": " << response.message();
    if (!response.approval_request_id().empty()) {
      session.out() << " (approval request " << response.approval_request_id() << ")";
    }
    session.out() << "\n";
  }
  return response.verdict() == v1::ALLOW ? kExitOk : kExitNegative;
}

std::vector<OptionSpec> PageOptions() {
  return {{"page_size", "N", "at most N per page (default 50, at most 1000)"},
          {"page_token", "TOKEN", "the next_page_token of the previous page"}};
}

std::vector<OptionSpec> With(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<Command>& Commands() {
  static const std::vector<Command>* const kCommands = new std::vector<Command>{
      {"agents",
       "create",
       "Create an agent; prints its token, which is shown only this once.",
       {{"owner", "OWNER", "who answers for the agent", Need::kRequired},
        {"name", "NAME", "a name people recognise", Need::kRequired},
        {"description", "TEXT", "what the agent is for, for operators", Need::kOptional},
        {"kind", "KIND", "autonomous, delegated or service", Need::kOptional, "autonomous"},
        {"expires_at", "TIME", "RFC 3339 expiry (default: never)"},
        {"id", "ID", "an id of your own (agt_...); default: the server picks one"}},
       false,
       CreateAgent},
      {"agents",
       "get",
       "Show one agent.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       GetAgent},
      {"agents", "list", "List agents by id, a page at a time.", PageOptions(), false, ListAgents},
      {"agents",
       "suspend",
       "Suspend an agent: it is denied until reactivated.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       SetAgentStatus(&AdminStub::SuspendAgent)},
      {"agents",
       "reactivate",
       "Reactivate a suspended agent.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       SetAgentStatus(&AdminStub::ReactivateAgent)},
      {"agents",
       "revoke",
       "Revoke an agent, for good.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       SetAgentStatus(&AdminStub::RevokeAgent)},
      {"agents",
       "rotate",
       "Give an agent a new token; the old one works for the grace period only.",
       {{"id", "ID", "the agent's id", Need::kRequired},
        {"grace", "DURATION", "how long the old token keeps working", Need::kOptional, "0s"}},
       false,
       RotateToken},
      {"permissions",
       "grant",
       "Grant an agent a permission.",
       {{"agent", "ID", "the agent's id", Need::kRequired},
        {"resource", "PATTERN", "docs:* or /api/**", Need::kRequired},
        {"actions", "LIST", "comma-separated actions, or *", Need::kRequired},
        {"effect", "EFFECT", "allow or deny", Need::kOptional, "allow"},
        {"constraints", "JSON", "constraints as a JSON object"}},
       false,
       GrantPermission},
      {"permissions",
       "revoke",
       "Remove a permission.",
       {{"id", "ID", "the permission's id (perm_...)", Need::kRequired}},
       false,
       RevokePermission},
      {"delegations",
       "create",
       "Lend part of an agent's rights to another; refused when it lends more than the lender "
       "holds, goes deeper than a max_depth allows, or closes a cycle.",
       {{"from", "ID", "the lending agent", Need::kRequired},
        {"to", "ID", "the receiving agent", Need::kRequired},
        {"resource", "PATTERN", "what is lent", Need::kRequired},
        {"actions", "LIST", "comma-separated actions", Need::kRequired},
        {"constraints", "JSON", "constraints on the lent permission"},
        {"max_depth", "N", "the longest delegation path this link may be on", Need::kOptional, "1"},
        {"expires_at", "TIME", "RFC 3339 expiry (default: never)"}},
       false,
       CreateDelegation},
      {"delegations",
       "revoke",
       "Revoke a delegation.",
       {{"id", "ID", "the delegation's id (dlg_...)", Need::kRequired}},
       false,
       RevokeDelegation},
      {"approvals", "list", "List approval requests, oldest first.",
       With({{"status", "STATUS", "pending, approved, denied, expired or used", Need::kOptional,
              "pending"}},
            PageOptions()),
       false, ListApprovals},
      {"approvals",
       "approve",
       "Approve a pending request; quorum distinct approvers approve it.",
       {{"id", "ID", "the approval request's id (apr_...)", Need::kRequired},
        {"approver", "NAME", "who approves (counted once)", Need::kRequired}},
       false,
       Vote(&AdminStub::ApproveRequest)},
      {"approvals",
       "deny",
       "Deny a pending request.",
       {{"id", "ID", "the approval request's id (apr_...)", Need::kRequired},
        {"approver", "NAME", "who denies", Need::kRequired}},
       false,
       Vote(&AdminStub::DenyRequest)},
      {"log", "query", "Show decision log rows, oldest first.",
       With({{"agent", "ID", "only this agent's decisions"},
             {"since", "TIME", "RFC 3339: decided at or after"},
             {"until", "TIME", "RFC 3339: decided before"},
             {"verdict", "VERDICT", "allow, deny or needs_approval"}},
            PageOptions()),
       false, QueryLog},
      {"log",
       "verify",
       "Check the decision log's hash chain; exit 2 and name the first bad row when broken.",
       {},
       false,
       VerifyLog},
      {"policy",
       "export",
       "Write the whole policy as JSON.",
       {{"out", "PATH", "where to write it; - for standard output", Need::kOptional, "-"}},
       false,
       ExportPolicy},
      {"policy",
       "import",
       "Load a policy exported by `policy export` into an empty store, all or nothing.",
       {{"file", "PATH", "the policy JSON; - for standard input", Need::kRequired}},
       false,
       ImportPolicy},
      {"tokens",
       "revoke-jti",
       "Revoke a JWT access token by its jti: it is refused from the next decision on.",
       {{"jti", "ID", "the token's jti", Need::kRequired},
        {"expires_at", "TIME", "the token's exp, RFC 3339 (the revocation outlives it)",
         Need::kRequired}},
       false,
       RevokeTokenId},
      {"keys",
       "add",
       "Add a key that signs JWT access tokens, under its JWK's kid.",
       {{"jwk", "PATH", "the JWK (public, or an HS256 secret); - for standard input",
         Need::kRequired},
        {"alg", "LIST", "the algorithms it verifies: EdDSA, ES256 or HS256", Need::kRequired}},
       false,
       [](Session& session) { return SendSigningKey(session, &AdminStub::AddSigningKey); }},
      {"keys",
       "rotate",
       "Replace the content of the active key with the JWK's kid; counts at once.",
       {{"jwk", "PATH", "the new JWK under the same kid; - for standard input", Need::kRequired},
        {"alg", "LIST", "the algorithms it verifies: EdDSA, ES256 or HS256", Need::kRequired}},
       false,
       [](Session& session) { return SendSigningKey(session, &AdminStub::RotateSigningKey); }},
      {"keys",
       "retire",
       "Retire a signing key: the tokens it signed are refused from the next decision on.",
       {{"kid", "KID", "the key's kid", Need::kRequired}},
       false,
       RetireSigningKey},
      {"keys",
       "list",
       "List the signing keys kept in the store, oldest first.",
       {},
       false,
       ListSigningKeys},
      {"",
       "check",
       "Ask the decision port whether a call is allowed; exit 0 for ALLOW, 2 otherwise.",
       {{"agent", "ID", "the subject, by agent id"},
        {"token", "TOKEN", "the subject, by agent token"},
        {"action", "ACTION", "the action", Need::kRequired},
        {"resource", "RESOURCE", "the resource", Need::kRequired},
        {"args", "JSON", "the call's arguments, a JSON object"},
        {"ip", "IP", "the caller's IP address"},
        {"request_id", "ID", "echoed back and logged"},
        {"dpop", "PROOF", "the DPoP proof for a JWT access token bound to a key"},
        {"http_method", "METHOD", "the HTTP method the DPoP proof is for (POST)"},
        {"http_uri", "URI", "the HTTP URI the DPoP proof is for"}},
       true,
       Check},
  };
  return *kCommands;
}

std::vector<OptionSpec> AllOptions(const Command& command) {
  return With(command.options,
              command.decision_port ? DecisionConnectionOptions() : AdminConnectionOptions());
}

std::string CommandLine(const Command& command) {
  return command.group.empty() ? command.name : absl::StrCat(command.group, " ", command.name);
}

std::string CommandHelp(const Command& command) {
  return absl::StrCat("Usage: verdict ", CommandLine(command), " [options]\n\n", command.summary,
                      "\n\nOptions:\n", OptionsHelp(AllOptions(command)), "\n", kExitCodesHelp);
}

std::string OverviewHelp(absl::string_view group = "") {
  std::string help =
      "Usage: verdict <command> [options]   (verdict <command> --help for its options)\n\n"
      "Manage what verdictd decides on, over its admin listener, and ask it for decisions.\n\n"
      "Commands:\n";
  for (const Command& command : Commands()) {
    if (!group.empty() && command.group != group) continue;
    absl::StrAppend(&help, "  ", CommandLine(command),
                    std::string(22 - std::min<size_t>(21, CommandLine(command).size()), ' '),
                    command.summary, "\n");
  }
  if (group.empty()) {
    absl::StrAppend(&help,
                    "  version               Print the version and the commit it was built "
                    "from.\n");
  }
  absl::StrAppend(&help, "\nThe admin secret comes from --admin_secret_file=PATH or $",
                  kAdminSecretEnv, ".\n\n", kExitCodesHelp);
  return help;
}

bool IsGroup(absl::string_view word) {
  for (const Command& command : Commands()) {
    if (!command.group.empty() && command.group == word) return true;
  }
  return false;
}

bool IsSwitch(absl::string_view arg) { return arg == "--json" || arg == "--help"; }

}  // namespace

int RunVerdictCli(const std::vector<std::string>& args, CliEnvironment& env) {
  // Options may come before the command words too: `verdict --json agents list`.
  std::vector<std::string> words;
  std::vector<std::string> option_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (absl::StartsWith(arg, "-")) {
      option_args.push_back(arg);
      // "--name value": the value is no command word.
      if (absl::StartsWith(arg, "--") && !absl::StrContains(arg, '=') && !IsSwitch(arg) &&
          i + 1 < args.size()) {
        option_args.push_back(args[++i]);
      }
    } else if (words.size() >= 2 || (words.size() == 1 && !IsGroup(words[0]))) {
      option_args.push_back(arg);  // left for the option parser to refuse
    } else {
      words.push_back(arg);
    }
  }
  const bool wants_help =
      std::find(option_args.begin(), option_args.end(), "--help") != option_args.end() ||
      std::find(option_args.begin(), option_args.end(), "-h") != option_args.end();
  // `verdict version` or `verdict --version`: no server involved.
  const bool wants_version = (words.size() == 1 && words[0] == "version") ||
                             (words.empty() && option_args.size() == 1 &&
                              (option_args[0] == "--version" || option_args[0] == "-version"));
  if (wants_version && wants_help && !words.empty()) {
    env.out << "Usage: verdict version\n\nPrint the version and the commit it was built from.\n";
    return kExitOk;
  }
  if (wants_version && !wants_help) {
    if (words.size() == 1 && !option_args.empty()) {
      env.err << "verdict version: takes no options\n";
      return kExitUsage;
    }
    env.out << VersionLine("verdict");
    return kExitOk;
  }
  if (words.empty()) {
    (wants_help ? env.out : env.err) << OverviewHelp();
    return wants_help ? kExitOk : kExitUsage;
  }
  const std::string group = IsGroup(words[0]) ? words[0] : "";
  const std::string name = group.empty() ? words[0] : (words.size() > 1 ? words[1] : "");
  for (const Command& command : Commands()) {
    if (command.group != group || command.name != name) continue;
    const std::vector<OptionSpec> specs = AllOptions(command);
    absl::StatusOr<ParsedOptions> options = ParseOptions(option_args, specs);
    if (!options.ok()) {
      env.err << "verdict " << CommandLine(command) << ": " << options.status().message()
              << "\n(verdict " << CommandLine(command) << " --help lists the options)\n";
      return kExitUsage;
    }
    if (options->help()) {
      env.out << CommandHelp(command);
      return kExitOk;
    }
    Session session(*options, env);
    return command.run(session);
  }
  if (!group.empty() && (name.empty() || wants_help)) {
    (wants_help && name.empty() ? env.out : env.err) << OverviewHelp(group);
    return wants_help && name.empty() ? kExitOk : kExitUsage;
  }
  env.err << "verdict: unknown command \"" << absl::StrJoin(words, " ")
          << "\" (verdict --help lists them)\n";
  return kExitUsage;
}

}  // namespace verdict
