#include "decision/access_token_test_support.h"

#include <openssl/curve25519.h>

#include <cstdint>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "crypto/jwk.h"
#include "crypto/jwt_compact.h"
#include "crypto/sha256.h"
#include "crypto/token.h"

namespace verdict {
namespace {

Jwk ParseOrDie(absl::string_view jwk_json) {
  absl::StatusOr<Jwk> key = Jwk::Parse(jwk_json);
  if (!key.ok()) abort();  // a broken test fixture, not a test failure
  return *std::move(key);
}

std::string TimeClaim(absl::string_view name, absl::Time time) {
  return absl::StrCat("\"", name, "\":", absl::ToUnixSeconds(time));
}

}  // namespace

TestSigningKey TestSigningKey::NewEd25519(absl::string_view kid) {
  uint8_t public_key[ED25519_PUBLIC_KEY_LEN];
  uint8_t private_key[ED25519_PRIVATE_KEY_LEN];  // seed || public
  ED25519_keypair(public_key, private_key);
  const std::string x =
      Base64UrlEncode(absl::string_view(reinterpret_cast<char*>(public_key), sizeof(public_key)));
  const std::string d =
      Base64UrlEncode(absl::string_view(reinterpret_cast<char*>(private_key), 32));
  TestSigningKey key;
  key.kid = std::string(kid);
  key.alg = "EdDSA";
  key.public_jwk_json = absl::StrCat(R"({"kty":"OKP","crv":"Ed25519","alg":"EdDSA","kid":")", kid,
                                     R"(","x":")", x, R"("})");
  key.private_jwk_json = absl::StrCat(R"({"kty":"OKP","crv":"Ed25519","alg":"EdDSA","kid":")", kid,
                                      R"(","x":")", x, R"(","d":")", d, R"("})");
  return key;
}

TestSigningKey TestSigningKey::NewHs256(absl::string_view kid) {
  TestSigningKey key;
  key.kid = std::string(kid);
  key.alg = "HS256";
  key.public_jwk_json = absl::StrCat(R"({"kty":"oct","alg":"HS256","kid":")", kid, R"(","k":")",
                                     Base64UrlEncode(RandomBytes(32)), R"("})");
  key.private_jwk_json = key.public_jwk_json;
  return key;
}

TestSigningKey TestSigningKey::Es256(absl::string_view kid) {
  constexpr char kPoint[] = R"("x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
                            R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")";
  TestSigningKey key;
  key.kid = std::string(kid);
  key.alg = "ES256";
  key.public_jwk_json =
      absl::StrCat(R"({"kty":"EC","crv":"P-256","alg":"ES256","kid":")", kid, R"(",)", kPoint, "}");
  key.private_jwk_json =
      absl::StrCat(R"({"kty":"EC","crv":"P-256","alg":"ES256","kid":")", kid, R"(",)", kPoint,
                   R"(,"d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"})");
  return key;
}

SigningKey TestSigningKey::AsStored() const {
  SigningKey stored;
  stored.kid = kid;
  stored.jwk_json = public_jwk_json;
  stored.allowed_algorithms = {alg};
  return stored;
}

std::string TestSigningKey::Thumbprint() const { return ParseOrDie(public_jwk_json).thumbprint(); }

std::string JwksOf(const std::vector<TestSigningKey>& keys) {
  return absl::StrCat(R"({"keys":[)",
                      absl::StrJoin(keys, ",",
                                    [](std::string* out, const TestSigningKey& key) {
                                      out->append(key.public_jwk_json);
                                    }),
                      "]}");
}

AccessTokenSpec DefaultAccessTokenSpec(absl::string_view subject, absl::Time now) {
  AccessTokenSpec spec;
  spec.subject = std::string(subject);
  spec.issued_at = now;
  spec.expires_at = now + absl::Minutes(5);
  return spec;
}

std::string SignAccessToken(const TestSigningKey& key, const AccessTokenSpec& spec) {
  const std::string header =
      absl::StrCat(R"({"typ":")", spec.typ, R"(","alg":")", spec.alg.empty() ? key.alg : spec.alg,
                   R"(","kid":")", spec.kid.empty() ? key.kid : spec.kid, R"("})");
  std::string claims =
      absl::StrCat(R"({"iss":")", spec.issuer, R"(","aud":")", spec.audience, R"(","sub":")",
                   spec.subject, R"(","jti":")", spec.jti, R"(",)",
                   TimeClaim("iat", spec.issued_at), ",", TimeClaim("exp", spec.expires_at));
  if (spec.not_before) absl::StrAppend(&claims, ",", TimeClaim("nbf", *spec.not_before));
  if (!spec.cnf_jkt.empty()) absl::StrAppend(&claims, R"(,"cnf":{"jkt":")", spec.cnf_jkt, R"("})");
  claims.push_back('}');
  // Signed by hand rather than by SignJwt, so that a header may name an algorithm the key
  // cannot do.
  const std::string signing_input =
      absl::StrCat(Base64UrlEncode(header), ".", Base64UrlEncode(claims));
  const Jwk signer = ParseOrDie(key.private_jwk_json);
  absl::StatusOr<std::string> signature =
      signer.Sign(*JwsAlgorithmFromName(key.alg), signing_input);
  if (!signature.ok()) abort();
  return absl::StrCat(signing_input, ".", Base64UrlEncode(*signature));
}

std::string SignDpopProof(const TestSigningKey& proof_key, const DpopProofSpec& spec) {
  const Jwk signer = ParseOrDie(proof_key.private_jwk_json);
  const std::string header = absl::StrCat(R"({"typ":"dpop+jwt","alg":")", proof_key.alg,
                                          R"(","jwk":)", *signer.PublicJwkJson(), "}");
  std::string claims =
      absl::StrCat(R"({"jti":")", spec.jti, R"(","htm":")", spec.method, R"(","htu":")", spec.uri,
                   R"(",)", TimeClaim("iat", spec.issued_at));
  if (!spec.access_token.empty()) {
    absl::StrAppend(&claims, R"(,"ath":")", Base64UrlEncode(Sha256(spec.access_token)), "\"");
  }
  claims.push_back('}');
  absl::StatusOr<std::string> proof = SignJwt(header, claims, signer);
  if (!proof.ok()) abort();
  return *std::move(proof);
}

}  // namespace verdict
