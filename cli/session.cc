#include "cli/session.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "server/admin_secret.h"

namespace verdict {
namespace cli {

int Session::UsageError(absl::string_view message) {
  env_.err << "verdict: " << message << "\n";
  return kExitUsage;
}

int Session::Authorize(const v1::AuthorizeRequest& request, v1::AuthorizeResponse* response) {
  grpc::ClientContext context;
  if (int code = PrepareContext(&context); code != kExitOk) return code;
  auto stub = v1::DecisionService::NewStub(
      grpc::CreateChannel(options_.Get("addr"), grpc::InsecureChannelCredentials()));
  return Finish(stub->Authorize(&context, request, response));
}

void Session::Print(const Message& message, bool one_line) {
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

void Session::PrintDone(const Message& response, absl::string_view done, absl::string_view id) {
  if (options_.Switch("json")) return Print(response);
  env_.out << done << " " << id << "\n";
}

void Session::Note(absl::string_view note) { env_.err << note << "\n"; }

int Session::AdminSecret(std::string* secret) {
  if (options_.Has("admin_secret_file")) {
    absl::StatusOr<std::string> from_file = ReadAdminSecretFile(options_.Get("admin_secret_file"));
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

std::string Session::Principal() const {
  if (options_.Has("principal")) return options_.Get("principal");
  return std::string(absl::StripAsciiWhitespace(env_.getenv(kPrincipalEnv).value_or("")));
}

int Session::PrepareContext(grpc::ClientContext* context) {
  absl::Duration timeout;
  if (!absl::ParseDuration(options_.Get("timeout"), &timeout) || timeout <= absl::ZeroDuration() ||
      timeout == absl::InfiniteDuration()) {
    return UsageError(absl::StrCat("--timeout: \"", options_.Get("timeout"),
                                   "\" is not a positive duration such as 10s"));
  }
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  return kExitOk;
}

int Session::Finish(const grpc::Status& status) {
  if (status.ok()) return kExitOk;
  env_.err << "verdict: " << CodeName(status.error_code()) << ": " << status.error_message()
           << "\n";
  return ExitCodeForStatus(status.error_code());
}

const char* Session::CodeName(grpc::StatusCode code) {
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
    case grpc::StatusCode::PERMISSION_DENIED:
      return "permission denied";
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

}  // namespace cli
}  // namespace verdict
