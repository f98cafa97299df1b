// Values written on the command line, read for the commands (cli/commands.h): times, lists, page
// sizes and documents named by an option.
//
//   google::protobuf::Timestamp at;
//   if (!ParseTimestamp("2030-01-01T00:00:00Z", &at)) ...  // a usage error
#ifndef VERDICT_CLI_OPTION_VALUES_H_
#define VERDICT_CLI_OPTION_VALUES_H_

#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "cli/exit_codes.h"
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

// --page_size (ParsePageSize) and --page_token into a list request; a usage error for a page
// size out of range.
template <typename ListRequest>
int ReadPageOptions(Session& session, ListRequest& request) {
  uint32_t page_size = 0;
  if (!ParsePageSize(session.options(), &page_size)) {
    return session.UsageError("--page_size: a number from 1 to 1000");
  }
  request.set_page_size(page_size);
  request.set_page_token(session.options().Get("page_token"));
  return kExitOk;
}

// --since and --until, each when given, into a query's since and until; a usage error when
// either is not an RFC 3339 time or --until is not later than --since.
template <typename Query>
int ReadTimeWindow(Session& session, Query& request) {
  const ParsedOptions& o = session.options();
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
  return kExitOk;
}

// The document an option names: a file, a pipe (<(...), /dev/stdin), or - for standard input.
int ReadDocument(Session& session, const std::string& option, std::string* document);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_OPTION_VALUES_H_
