// One command line's session with verdictd (cli/verdict_cli.h): its parsed options, how to
// reach the admin listener (with the admin credential) or the decision port, and how to show the
// answer in the format asked for (-o table|json|yaml, cli/output.h). Every command runs against
// one.
//
//   v1::GetAgentResponse response;
//   int code = session.CallAdmin(&AdminStub::GetAgent, request, &response);
//   if (code == kExitOk) session.Print(response.agent());
#ifndef VERDICT_CLI_SESSION_H_
#define VERDICT_CLI_SESSION_H_

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "cli/cli_environment.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/output.h"
#include "common/admin_limits.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace cli {

using AdminStub = v1::AdminService::Stub;
using google::protobuf::Message;

// What one command line asks for, and how to reach the server and show the answer.
// The format that --output, -o and --json ask for; INVALID_ARGUMENT naming the options when
// they ask for none or for two.
absl::StatusOr<OutputFormat> OutputFormatOf(const ParsedOptions& options);

class Session {
 public:
  Session(const ParsedOptions& options, CliEnvironment& env) : options_(options), env_(env) {}

  const ParsedOptions& options() const { return options_; }
  std::ostream& out() { return env_.out; }
  std::istream& in() { return env_.in; }
  std::ostream& err() { return env_.err; }

  // Says "verdict: <message>" on stderr; returns kExitUsage.
  int UsageError(absl::string_view message);

  // Calls an AdminService method with the admin credential: the secret of --admin_secret_file
  // or $VERDICT_ADMIN_SECRET, else the session `verdict login` stored for this address, else
  // none on a unix: address (verdictd may know the caller by its uid, --admin_peer_uids). On
  // failure, says why on stderr.
  template <typename Request, typename Response>
  int CallAdmin(grpc::Status (AdminStub::*method)(grpc::ClientContext*, const Request&, Response*),
                const Request& request, Response* response) {
    std::string authorization;
    if (int code = AdminAuthorization(&authorization); code != kExitOk) return code;
    return CallAdminAs(authorization, AdminAddress(), method, request, response);
  }

  // The same with the given "authorization" metadata ("" for none), at `address`.
  template <typename Request, typename Response>
  int CallAdminAs(const std::string& authorization, const std::string& address,
                  grpc::Status (AdminStub::*method)(grpc::ClientContext*, const Request&,
                                                    Response*),
                  const Request& request, Response* response) {
    grpc::ClientContext context;
    if (int code = PrepareContext(&context); code != kExitOk) return code;
    if (!authorization.empty()) context.AddMetadata("authorization", authorization);
    if (std::string principal = Principal(); !principal.empty()) {
      context.AddMetadata("verdict-principal", principal);
    }
    // A policy export comes back whole in one message (common/admin_limits.h).
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(kMaxAdminMessageBytes);
    arguments.SetMaxSendMessageSize(kMaxAdminMessageBytes);
    auto stub = v1::AdminService::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments));
    return Finish((stub.get()->*method)(&context, request, response));
  }

  // --admin_addr, else $VERDICT_ADMIN_ADDR, else verdictd's default (kDefaultAdminAddress).
  std::string AdminAddress() const;
  // The admin secret of --admin_secret_file or $VERDICT_ADMIN_SECRET; "" when neither is given.
  // A usage error (said on stderr) when the one given cannot be used.
  int GivenAdminSecret(std::string* secret);
  // Where `verdict login` keeps the session; a usage error when there is nowhere.
  int SessionPath(std::string* path);

  // Calls the decision port's Authorize (`check`); on failure, says why on stderr.
  int Authorize(const v1::AuthorizeRequest& request, v1::AuthorizeResponse* response);
  // The decision port's Simulate (`check --explain`): no side effects, and the trace.
  int Simulate(const v1::SimulateRequest& request, v1::SimulateResponse* response);

  // The format asked for: --output (or -o), --json for json; a table by default. The value
  // was checked before the command ran (OutputFormatOf).
  OutputFormat format() const;

  // The answer, in format().
  void Print(const Message& message);
  void Print(const OutputValue& value);

  // A list answer: as a table, one row per item (then the next page's token, if any); in JSON
  // or YAML the whole response.
  template <typename Items>
  void PrintList(const Message& response, const Items& items, const std::string& next_page) {
    if (format() != OutputFormat::kTable) return Print(response);
    std::vector<OutputValue> rows;
    for (const auto& item : items) rows.push_back(OutputOf(item));
    PrintRows(rows);
    if (!next_page.empty()) env_.out << "next_page_token: " << next_page << "\n";
  }

  // Records as a table's rows; "(none)" when there is none, so that an empty answer is seen.
  void PrintRows(const std::vector<OutputValue>& rows);

  // An answer with nothing in it: "{}" in JSON or YAML, else what was done to what.
  void PrintDone(const Message& response, absl::string_view done, absl::string_view id);

  // A note on stderr, so that stdout stays what scripts parse.
  void Note(absl::string_view note);

 private:
  // "Bearer <credential>" for CallAdmin, or "" (none) on a unix: address; remembers which was
  // chosen, so that a refusal can say what to do.
  int AdminAuthorization(std::string* authorization);
  // --principal, else $VERDICT_PRINCIPAL, else "" (the server then takes "admin").
  std::string Principal() const;
  int PrepareContext(grpc::ClientContext* context);
  int Finish(const grpc::Status& status);
  static const char* CodeName(grpc::StatusCode code);

  const ParsedOptions& options_;
  CliEnvironment& env_;
  enum class Sent { kSecret, kStoredSession, kNothing };
  Sent sent_ = Sent::kSecret;
};

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_SESSION_H_
