#include "cli/session.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/session_file.h"
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

absl::StatusOr<OutputFormat> OutputFormatOf(const ParsedOptions& options) {
  OutputFormat format = OutputFormat::kTable;
  if (!ParseOutputFormat(options.Get("output"), &format)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--output: table, json or yaml, not \"", options.Get("output"), "\""));
  }
  if (options.Switch("json")) {
    if (options.Has("output") && format != OutputFormat::kJson) {
      return absl::InvalidArgumentError("--json is --output=json: give one of them");
    }
    format = OutputFormat::kJson;
  }
  return format;
}

OutputFormat Session::format() const {
  return OutputFormatOf(options_).value_or(OutputFormat::kTable);
}

int Session::Simulate(const v1::SimulateRequest& request, v1::SimulateResponse* response) {
  grpc::ClientContext context;
  if (int code = PrepareContext(&context); code != kExitOk) return code;
  auto stub = v1::DecisionService::NewStub(
      grpc::CreateChannel(options_.Get("addr"), grpc::InsecureChannelCredentials()));
  return Finish(stub->Simulate(&context, request, response));
}

void Session::Print(const Message& message) { Print(OutputOf(message)); }

void Session::Print(const OutputValue& value) { env_.out << Render(value, format()); }

void Session::PrintRows(const std::vector<OutputValue>& rows) {
  env_.out << (rows.empty() ? "(none)\n" : RenderTable(rows));
}

void Session::PrintDone(const Message& response, absl::string_view done, absl::string_view id) {
  if (format() != OutputFormat::kTable) return Print(response);
  env_.out << done << " " << id << "\n";
}

void Session::Note(absl::string_view note) { env_.err << note << "\n"; }

std::string Session::AdminAddress() const {
  if (options_.Has("admin_addr")) return options_.Get("admin_addr");
  std::optional<std::string> from_env = env_.getenv(kAdminAddrEnv);
  const std::string stripped(absl::StripAsciiWhitespace(from_env.value_or("")));
  return stripped.empty() ? kDefaultAdminAddress : stripped;
}

int Session::GivenAdminSecret(std::string* secret) {
  secret->clear();
  if (options_.Has("admin_secret_file")) {
    absl::StatusOr<std::string> from_file = ReadAdminSecretFile(options_.Get("admin_secret_file"));
    if (!from_file.ok()) return UsageError(from_file.status().message());
    *secret = *std::move(from_file);
    return kExitOk;
  }
  std::optional<std::string> from_env = env_.getenv(kAdminSecretEnv);
  const std::string stripped(absl::StripAsciiWhitespace(from_env.value_or("")));
  if (from_env.value_or("").empty()) return kExitOk;  // not given
  // Checked here as a file's is: a secret the server can never accept would only count as a
  // failed credential against every caller on this socket.
  if (absl::Status checked = CheckAdminSecret(stripped); !checked.ok()) {
    return UsageError(absl::StrCat(kAdminSecretEnv, ": ", checked.message()));
  }
  *secret = stripped;
  return kExitOk;
}

int Session::SessionPath(std::string* path) {
  absl::StatusOr<std::string> found = SessionFilePath(env_.getenv);
  if (!found.ok()) return UsageError(found.status().message());
  *path = *std::move(found);
  return kExitOk;
}

int Session::AdminAuthorization(std::string* authorization) {
  std::string secret;
  if (int code = GivenAdminSecret(&secret); code != kExitOk) return code;
  if (!secret.empty()) {
    sent_ = Sent::kSecret;
    *authorization = absl::StrCat("Bearer ", secret);
    return kExitOk;
  }
  const std::string address = AdminAddress();
  if (absl::StatusOr<std::string> path = SessionFilePath(env_.getenv); path.ok()) {
    absl::StatusOr<std::optional<StoredSession>> stored = ReadSessionFile(*path);
    if (!stored.ok()) {
      Note(absl::StrCat("verdict: ignoring the stored session: ", stored.status().message()));
    } else if (stored->has_value() && (*stored)->admin_addr == address &&
               (*stored)->expires_at > absl::Now()) {
      sent_ = Sent::kStoredSession;
      *authorization = absl::StrCat("Bearer ", (*stored)->token);
      return kExitOk;
    }
  }
  if (absl::StartsWith(address, "unix:")) {
    // verdictd may know this user by its uid (--admin_peer_uids).
    sent_ = Sent::kNothing;
    authorization->clear();
    return kExitOk;
  }
  return UsageError(absl::StrCat("no admin secret: set ", kAdminSecretEnv,
                                 ", pass --admin_secret_file=PATH or run verdict login"));
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
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED && sent_ == Sent::kNothing) {
    env_.err << "verdict: no admin credential was sent: set " << kAdminSecretEnv
             << ", pass --admin_secret_file=PATH or run verdict login\n";
  } else if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED &&
             sent_ == Sent::kStoredSession) {
    env_.err << "verdict: the session of verdict login was refused: run verdict login again\n";
  }
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
