// Canonical JSON (common/json.h) on arbitrary bytes: whatever parses has one canonical form,
// which parses again to itself (so equal arguments hash equally) and is valid UTF-8.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<verdict::JsonValue> parsed = verdict::ParseJson(input);
  if (!parsed.ok()) return 0;
  const std::string canonical = verdict::CanonicalJson(*parsed);
  FUZZ_CHECK(verdict::IsValidUtf8(canonical), "canonical JSON is valid UTF-8");
  // Escapes may make the canonical form longer than the input: the size limit is not the point.
  verdict::JsonLimits limits;
  limits.max_bytes = std::max(limits.max_bytes, canonical.size());
  absl::StatusOr<verdict::JsonValue> reparsed = verdict::ParseJson(canonical, limits);
  FUZZ_CHECK(reparsed.ok(), "canonical JSON parses");
  FUZZ_CHECK(verdict::CanonicalJson(*reparsed) == canonical, "canonical JSON is a fixed point");
  return 0;
}
