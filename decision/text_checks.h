// Shape checks shared by what verdict accepts as text: resource patterns and resources, action
// names, agent ids, request ids. Each failure is INVALID_ARGUMENT and its message starts with the
// field's name, so a caller can tell which field to fix:
//
//   CheckPrintableUtf8("resource", "a\x01", 1024)
//     // INVALID_ARGUMENT "resource: contains a control character at byte 1"
#ifndef VERDICT_DECISION_TEXT_CHECKS_H_
#define VERDICT_DECISION_TEXT_CHECKS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace verdict {

// OK when `text` is 1..max_bytes bytes of valid UTF-8 holding no control character (C0 controls,
// DEL, or the C1 controls U+0080..U+009F).
absl::Status CheckPrintableUtf8(absl::string_view field, absl::string_view text, size_t max_bytes);

// A-Z, a-z, 0-9: the core of every identifier alphabet.
bool IsAsciiAlphanumeric(char c);

// OK when `text` is min_bytes..max_bytes bytes and `allowed` accepts every byte; the message for
// a refused byte quotes `allowed_description` ("A-Z a-z 0-9 _ . : -").
absl::Status CheckAsciiCharset(absl::string_view field, absl::string_view text, size_t min_bytes,
                               size_t max_bytes, bool (*allowed)(char),
                               absl::string_view allowed_description);

}  // namespace verdict

#endif  // VERDICT_DECISION_TEXT_CHECKS_H_
