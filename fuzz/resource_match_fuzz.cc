// Resource and action matching (decision/resource_match.h) on arbitrary bytes. The input is a
// pattern and a resource separated by the first NUL byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "decision/resource_match.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t separator = input.find('\0');
  const absl::string_view pattern = input.substr(0, separator);
  const absl::string_view resource =
      separator == absl::string_view::npos ? absl::string_view() : input.substr(separator + 1);

  const bool storable = verdict::ValidateResourcePattern(pattern).ok();
  const bool matches = verdict::ResourceMatches(pattern, resource);
  FUZZ_CHECK(verdict::ResourceMatches("*", resource), "\"*\" alone matches every resource");
  // Without a wildcard, matching is byte equality: no normalisation, no prefix match.
  if (storable && pattern.find('*') == absl::string_view::npos) {
    FUZZ_CHECK(matches == (pattern == resource), "a pattern without '*' matches only itself");
  }
  if (storable) {
    FUZZ_CHECK(pattern.find('*') != absl::string_view::npos || verdict::ResourceMatches(pattern, pattern),
               "a storable pattern without '*' matches itself");
  }

  const std::vector<std::string> actions = {std::string(pattern)};
  FUZZ_CHECK(verdict::ActionMatches(actions, resource) == (pattern == "*" || pattern == resource),
             "actions match exactly or by \"*\"");
  (void)verdict::ValidateActionName(resource);
  return 0;
}
