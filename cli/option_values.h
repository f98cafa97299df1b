// Values written on the command line, read for the commands (cli/commands.h): times, lists, page
// sizes and documents named by an option.
//
//   google::protobuf::Timestamp at;
//   if (!ParseTimestamp("2030-01-01T00:00:00Z", &at)) ...  // a usage error
#ifndef VERDICT_CLI_OPTION_VALUES_H_
#define VERDICT_CLI_OPTION_VALUES_H_

#include <google/protobuf/timestamp.pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "cli/options.h"
#include "cli/session.h"

namespace verdict {
namespace cli {

// An RFC 3339 time; false for anything else (infinite-future included).
bool ParseTimestamp(absl::string_view text, google::protobuf::Timestamp* timestamp);

// "a, b,,c" -> {"a", "b", "c"}.
std::vector<std::string> SplitList(absl::string_view text);

// 1 to 1000 (what the admin plane serves at most), when given.
bool ParsePageSize(const ParsedOptions& options, uint32_t* page_size);

// The document an option names: a file, a pipe (<(...), /dev/stdin), or - for standard input.
int ReadDocument(Session& session, const std::string& option, std::string* document);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_OPTION_VALUES_H_
