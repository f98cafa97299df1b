#include "cli/option_values.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "cli/exit_codes.h"

namespace verdict {
namespace cli {

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

bool ParsePageSize(const ParsedOptions& options, uint32_t* page_size) {
  if (!options.Has("page_size")) return true;
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(options.Get("page_size"), &parsed) || parsed < 1 || parsed > 1000) {
    return false;
  }
  *page_size = static_cast<uint32_t>(parsed);
  return true;
}

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

}  // namespace cli
}  // namespace verdict
