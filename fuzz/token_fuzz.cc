// Token parsing (crypto/token.h, crypto/jwt_compact.h) on arbitrary bytes: agent-token shape,
// base64url both ways, compact-JWS shape and decoding. Nothing here may crash, and what the
// shape checks accept must decode.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "crypto/jwt_compact.h"
#include "crypto/token.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);

  if (verdict::CheckAgentTokenShape(input).ok()) {
    FUZZ_CHECK(input.size() == verdict::kAgentTokenLength, "an agent token is 47 characters");
    FUZZ_CHECK(absl::StartsWith(input, verdict::kAgentTokenPrefix), "an agent token starts vdt_");
    FUZZ_CHECK(!verdict::LooksLikeCompactJws(input), "an agent token is no JWS");
    absl::StatusOr<std::string> secret =
        verdict::Base64UrlDecode(input.substr(verdict::kAgentTokenPrefix.size()));
    FUZZ_CHECK(secret.ok() && secret->size() == 32, "an agent token holds 32 bytes");
  }

  // Decoding is canonical: only the encoding of the decoded bytes decodes.
  absl::StatusOr<std::string> decoded = verdict::Base64UrlDecode(input);
  if (decoded.ok()) {
    FUZZ_CHECK(verdict::Base64UrlEncode(*decoded) == input, "base64url decoding is canonical");
  }
  absl::StatusOr<std::string> round_trip = verdict::Base64UrlDecode(verdict::Base64UrlEncode(input));
  FUZZ_CHECK(round_trip.ok() && *round_trip == input, "base64url encoding round-trips");

  if (verdict::CheckCompactJwsShape(input).ok()) {
    FUZZ_CHECK(input.size() <= verdict::kMaxAccessTokenLength, "a JWS within the length limit");
    int segments = 0;
    for (absl::string_view segment : absl::StrSplit(input, '.')) {
      FUZZ_CHECK(!segment.empty(), "every JWS segment is non-empty");
      ++segments;
    }
    FUZZ_CHECK(segments == 3, "a compact JWS has three segments");
  }
  (void)verdict::DecodeJwt(input);
  (void)verdict::TokenDisplayPrefix(input);
  return 0;
}
