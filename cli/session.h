// One command line's session with verdictd (cli/verdict_cli.h): its parsed options, how to
// reach the admin listener (with the admin credential) or the decision port, and how to show the
// answer (protobuf text, or JSON with --json). Every command runs against one.
//
//   v1::Agent agent;
//   int code = session.CallAdmin(&AdminStub::GetAgent, request, &agent);
//   if (code == kExitOk) session.Print(agent);
#ifndef VERDICT_CLI_SESSION_H_
#define VERDICT_CLI_SESSION_H_

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <iosfwd>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "cli/cli_environment.h"
#include "cli/exit_codes.h"
#include "cli/options.h"
#include "common/admin_limits.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace cli {

using AdminStub = v1::AdminService::Stub;
using google::protobuf::Message;

// What one command line asks for, and how to reach the server and show the answer.
class Session {
 public:
  Session(const ParsedOptions& options, CliEnvironment& env) : options_(options), env_(env) {}

  const ParsedOptions& options() const { return options_; }
  std::ostream& out() { return env_.out; }
  std::istream& in() { return env_.in; }
  std::ostream& err() { return env_.err; }

  // Says "verdict: <message>" on stderr; returns kExitUsage.
  int UsageError(absl::string_view message);

  // Calls an AdminService method with the admin credential; on failure, says why on stderr.
  template <typename Request, typename Response>
  int CallAdmin(grpc::Status (AdminStub::*method)(grpc::ClientContext*, const Request&, Response*),
                const Request& request, Response* response) {
    std::string secret;
    if (int code = AdminSecret(&secret); code != kExitOk) return code;
    grpc::ClientContext context;
    if (int code = PrepareContext(&context); code != kExitOk) return code;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", secret));
    if (std::string principal = Principal(); !principal.empty()) {
      context.AddMetadata("verdict-principal", principal);
    }
    // A policy export comes back whole in one message (common/admin_limits.h).
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(kMaxAdminMessageBytes);
    arguments.SetMaxSendMessageSize(kMaxAdminMessageBytes);
    auto stub = v1::AdminService::NewStub(grpc::CreateCustomChannel(
        options_.Get("admin_addr"), grpc::InsecureChannelCredentials(), arguments));
    return Finish((stub.get()->*method)(&context, request, response));
  }

  // Calls the decision port's Authorize (`check`); on failure, says why on stderr.
  int Authorize(const v1::AuthorizeRequest& request, v1::AuthorizeResponse* response);

  // The answer: JSON with --json, else the protobuf text form (one line per message when
  // `one_line`, for lists).
  void Print(const Message& message, bool one_line = false);

  // A list answer: with --json the whole response, else one line per item and the next page.
  template <typename Items>
  void PrintList(const Message& response, const Items& items, const std::string& next_page) {
    if (options_.Switch("json")) return Print(response);
    for (const auto& item : items) Print(item, /*one_line=*/true);
    if (!next_page.empty()) env_.out << "next_page_token: " << next_page << "\n";
  }

  // An answer with nothing in it: "{}" with --json, else what was done to what.
  void PrintDone(const Message& response, absl::string_view done, absl::string_view id);

  // A note on stderr, so that stdout stays what scripts parse.
  void Note(absl::string_view note);

 private:
  int AdminSecret(std::string* secret);
  // --principal, else $VERDICT_PRINCIPAL, else "" (the server then takes "admin").
  std::string Principal() const;
  int PrepareContext(grpc::ClientContext* context);
  int Finish(const grpc::Status& status);
  static const char* CodeName(grpc::StatusCode code);

  const ParsedOptions& options_;
  CliEnvironment& env_;
};

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_SESSION_H_
