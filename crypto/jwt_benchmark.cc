// Access-token verification cost against BoringSSL's raw Ed25519 verify on the same bytes: the
// JWT layer (base64url, JSON, key lookup, claim checks) should add little to the signature check.
//
//   bazel run -c opt //crypto:jwt_benchmark
#include <openssl/curve25519.h>

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "crypto/jwk.h"
#include "crypto/jwt.h"
#include "crypto/token.h"

namespace verdict {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

// The RFC 8032 TEST 1 key, the RFC 7515 A.3 P-256 key and the RFC 7515 A.1 HMAC key.
constexpr char kEd25519X[] = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
constexpr char kEd25519D[] = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A";
constexpr char kP256Public[] =
    R"("x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")";
constexpr char kP256D[] = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI";
constexpr char kHmacK[] =
    "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";

struct Fixture {
  KeySet keys;
  JwtPolicy policy;
  std::string eddsa_token;
  std::string es256_token;
  std::string hs256_token;
};

std::string SignedToken(absl::string_view alg, absl::string_view kid, absl::string_view jwk) {
  const std::string header =
      absl::StrCat(R"({"alg":")", alg, R"(","kid":")", kid, R"(","typ":"at+jwt"})");
  const std::string claims = absl::StrCat(
      R"({"aud":"verdict","client_id":"client-9","cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"},)",
      R"("exp":)", absl::ToUnixSeconds(kNow) + 300, R"(,"iat":)", absl::ToUnixSeconds(kNow) - 10,
      R"(,"iss":"https://issuer.example","jti":"b6f1c2e4-3f4a-4d7e-9a55-1c2d3e4f5a6b",)",
      R"("scope":"read write","sub":"agent-7"})");
  return *SignJwt(header, claims, *Jwk::Parse(jwk));
}

const Fixture& GetFixture() {
  static const Fixture* const fixture = [] {
    auto* f = new Fixture;
    const std::string ed_public = absl::StrCat(
        R"({"kid":"ed-1","alg":"EdDSA","kty":"OKP","crv":"Ed25519","x":")", kEd25519X, R"("})");
    const std::string ec_public =
        absl::StrCat(R"({"kid":"ec-1","alg":"ES256","kty":"EC","crv":"P-256",)", kP256Public, "}");
    const std::string hmac =
        absl::StrCat(R"({"kid":"hs-1","alg":"HS256","kty":"oct","k":")", kHmacK, R"("})");
    f->keys =
        *KeySet::FromJwks(absl::StrCat(R"({"keys":[)", ed_public, ",", ec_public, ",", hmac, "]}"));
    f->policy.issuer = "https://issuer.example";
    f->policy.audience = "verdict";
    f->eddsa_token = SignedToken("EdDSA", "ed-1",
                                 absl::StrCat(R"({"alg":"EdDSA","kty":"OKP","crv":"Ed25519","x":")",
                                              kEd25519X, R"(","d":")", kEd25519D, R"("})"));
    f->es256_token = SignedToken("ES256", "ec-1",
                                 absl::StrCat(R"({"alg":"ES256","kty":"EC","crv":"P-256",)",
                                              kP256Public, R"(,"d":")", kP256D, R"("})"));
    f->hs256_token = SignedToken("HS256", "hs-1", hmac);
    return f;
  }();
  return *fixture;
}

void BM_Ed25519RawVerify(benchmark::State& state) {
  const std::string& token = GetFixture().eddsa_token;
  const size_t dot = token.rfind('.');
  const std::string signing_input = token.substr(0, dot);
  const std::string signature = *Base64UrlDecode(token.substr(dot + 1));
  const std::string public_key = *Base64UrlDecode(kEd25519X);
  for (auto _ : state) {
    const int valid =
        ED25519_verify(reinterpret_cast<const uint8_t*>(signing_input.data()), signing_input.size(),
                       reinterpret_cast<const uint8_t*>(signature.data()),
                       reinterpret_cast<const uint8_t*>(public_key.data()));
    if (valid != 1) state.SkipWithError("signature did not verify");
    benchmark::DoNotOptimize(valid);
  }
}
BENCHMARK(BM_Ed25519RawVerify);

void VerifyLoop(benchmark::State& state, const std::string& token) {
  const Fixture& fixture = GetFixture();
  for (auto _ : state) {
    absl::StatusOr<AccessTokenClaims> claims =
        VerifyAccessToken(token, fixture.keys, fixture.policy, kNow);
    if (!claims.ok()) state.SkipWithError(std::string(claims.status().message()).c_str());
    benchmark::DoNotOptimize(claims);
  }
}

void BM_JwtVerifyEdDSA(benchmark::State& state) { VerifyLoop(state, GetFixture().eddsa_token); }
BENCHMARK(BM_JwtVerifyEdDSA);

void BM_JwtVerifyHS256(benchmark::State& state) { VerifyLoop(state, GetFixture().hs256_token); }
BENCHMARK(BM_JwtVerifyHS256);

void BM_JwtVerifyES256(benchmark::State& state) { VerifyLoop(state, GetFixture().es256_token); }
BENCHMARK(BM_JwtVerifyES256);

}  // namespace
}  // namespace verdict
