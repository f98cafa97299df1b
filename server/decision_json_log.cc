#include "server/decision_json_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "common/redaction.h"
#include "crypto/token.h"

namespace verdict {
namespace {

void AppendMember(absl::string_view key, absl::string_view value, std::string* line) {
  absl::StrAppend(line, ",", JsonQuote(key), ":", JsonQuote(value));
}

// ,"key":["a","b"]: each element of `items` as `text_of` gives it.
template <typename T, typename TextOf>
void AppendArray(absl::string_view key, const std::vector<T>& items, TextOf text_of,
                 std::string* line) {
  absl::StrAppend(line, ",", JsonQuote(key), ":[");
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(line, i == 0 ? "" : ",", JsonQuote(text_of(items[i])));
  }
  absl::StrAppend(line, "]");
}

}  // namespace

std::string DecisionJsonLine(const Request& request, const Decision& decision,
                             absl::Duration latency, absl::Time at,
                             const DecisionLogPosition* position) {
  const Subject& subject = request.subject;
  const bool by_token = !subject.token.empty();
  std::string line = absl::StrCat(
      "{\"ts\":", JsonQuote(absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", at, absl::UTCTimeZone())),
      ",\"event\":\"decision\"");
  // What the caller wrote is kept, but never a token it wrote there (common/redaction.h).
  AppendMember("request_id",
               RedactTokens(decision.request_id.empty() ? request.request_id : decision.request_id),
               &line);
  AppendMember("agent_id", decision.agent_id.empty() ? subject.agent_id : decision.agent_id, &line);
  AppendMember("subject", by_token ? "token" : "agent_id", &line);
  if (by_token) AppendMember("token_prefix", TokenDisplayPrefix(subject.token), &line);
  AppendMember("action", RedactTokens(request.action), &line);
  AppendMember("resource", RedactTokens(request.resource), &line);
  AppendMember("client_ip", request.client_ip, &line);
  // RedactSecrets returns JSON (an object, or a redacted string for text that does not parse).
  absl::StrAppend(&line, ",\"arguments\":", RedactSecrets(request.arguments_json));
  AppendMember("verdict", VerdictName(decision.verdict), &line);
  AppendMember("reason", ReasonCodeName(decision.reason), &line);
  // A message may quote the resource, never the subject's token; neither is kept.
  AppendMember("message", RedactTokens(RedactOccurrences(decision.message, subject.token)), &line);
  AppendMember("permission_id",
               decision.matched_grant.has_value() ? decision.matched_grant->permission_id : "",
               &line);
  AppendArray(
      "delegation_path", decision.delegation_path,
      [](const DelegationHop& hop) -> const std::string& { return hop.delegation_id; }, &line);
  AppendMember("approval_request_id", decision.approval_request_id, &line);
  // The principals whose votes let the call through (empty unless an approval was used), as the
  // decision log's approved_by names them.
  AppendArray(
      "approved_by", decision.approved_by,
      [](const std::string& principal) -> const std::string& { return principal; }, &line);
  if (position != nullptr && position->run_seq > 0) {
    AppendMember("run_id", position->run_id, &line);
    absl::StrAppend(&line, ",\"run_seq\":", position->run_seq);
  }
  absl::StrAppend(&line, ",\"latency_us\":", absl::ToInt64Microseconds(latency), "}");
  return line;
}

namespace {

// Whether the file at `path` is non-empty and its last byte is not a newline.
bool EndsMidLine(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char last = '\n';
  const off_t size = lseek(fd, 0, SEEK_END);
  const bool read_last = size > 0 && pread(fd, &last, 1, size - 1) == 1;
  close(fd);
  return read_last && last != '\n';
}

}  // namespace

absl::StatusOr<std::unique_ptr<DecisionJsonLog>> DecisionJsonLog::Open(const std::string& path,
                                                                       Clock clock) {
  if (path == "-") {
    return std::make_unique<DecisionJsonLog>(STDOUT_FILENO, /*owns_fd=*/false, std::move(clock));
  }
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
  if (fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot open the decision log ", path, ": ", std::strerror(errno)));
  }
  auto log = std::make_unique<DecisionJsonLog>(fd, /*owns_fd=*/true, std::move(clock));
  // A line a full disk cut short before a restart is ended like one cut in this run (h42).
  if (EndsMidLine(path)) {
    absl::MutexLock lock(&log->write_mu_);
    log->line_cut_short_ = true;
  }
  return log;
}

DecisionJsonLog::DecisionJsonLog(int fd, bool owns_fd, Clock clock)
    : fd_(fd), owns_fd_(owns_fd), clock_(std::move(clock)) {}

DecisionJsonLog::~DecisionJsonLog() {
  if (owns_fd_) close(fd_);
}

absl::Status DecisionJsonLog::OnDecision(const Request& request, const Decision& decision,
                                         absl::Duration latency) {
  Write(request, decision, latency, nullptr);
  return absl::OkStatus();
}

absl::Status NumberedDecisionLogs::OnDecision(const Request& request, const Decision& decision,
                                              absl::Duration latency) {
  const DecisionLogPosition position = writer_.Record(request, decision, latency);
  // Not answered, so not a decision the JSON log reports either.
  if (!position.kept.ok()) return position.kept;
  json_log_.Write(request, decision, latency, &position);
  return absl::OkStatus();
}

void DecisionJsonLog::Write(const Request& request, const Decision& decision,
                            absl::Duration latency, const DecisionLogPosition* position) {
  std::string line = DecisionJsonLine(request, decision, latency, clock_(), position);
  line += '\n';
  // Lines from concurrent calls must not interleave.
  absl::MutexLock lock(&write_mu_);
  // A line cut short earlier (a full disk) is ended first, so that this one starts on a line of
  // its own and parses; the fragment stays, an unparseable line, counted as failed (h41).
  const bool prefixed = line_cut_short_;
  if (prefixed) line.insert(line.begin(), '\n');
  size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      lines_failed_.fetch_add(1, std::memory_order_relaxed);
      // The file ends where this write stopped: mid-line, unless all it wrote was the newline
      // ending the earlier fragment; with nothing written, it ends as it did.
      if (written > 0) line_cut_short_ = !(prefixed && written == 1);
      return;
    }
    written += static_cast<size_t>(n);
  }
  line_cut_short_ = false;
}

}  // namespace verdict
