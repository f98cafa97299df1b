#include "crypto/dpop.h"

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "crypto/jwk.h"
#include "crypto/jwt_compact.h"
#include "crypto/sha256.h"
#include "crypto/token.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::Optional;

// RFC 9449 section 4.1: the example proof, its key's thumbprint (section 6.1) and its time.
constexpr char kRfc9449Proof[] =
    "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0Vj"
    "NoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5"
    "VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19"
    ".eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1w"
    "bGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ"
    ".2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg";
constexpr char kRfc9449Jkt[] = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I";
const absl::Time kRfc9449Iat = absl::FromUnixSeconds(1562262616);

// RFC 9449 section 7.1: an access token and its "ath".
constexpr char kRfc9449AccessToken[] = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU";
constexpr char kRfc9449Ath[] = "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo";

// The RFC 8032 TEST 2 and TEST 3 key pairs.
constexpr char kProofKey[] =
    R"({"kty":"OKP","crv":"Ed25519","d":"TM0Imyj_ltqdtsNG7BFOD1uKMZ81q6Yk2oz27U-4pvs",)"
    R"("x":"PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"})";
constexpr char kOtherKey[] =
    R"({"kty":"OKP","crv":"Ed25519","d":"xaqN9D-fg3vtt0QvMdy3sWbThTUHbwlLhc46LgtEWPc",)"
    R"("x":"_FHNjmIYoaONpH7QAjDwWAgW7RO6MwOsXeuRFUiQgCU"})";

constexpr char kMethod[] = "GET";
constexpr char kUri[] = "https://resource.example.org/protectedresource";
const absl::Time kNow = absl::FromUnixSeconds(1800000000);
const absl::Duration kWindow = absl::Seconds(60);

Jwk ParseKey(absl::string_view jwk) {
  constexpr JwsAlgorithm kEdDSA[] = {JwsAlgorithm::kEdDSA};
  absl::StatusOr<Jwk> key = Jwk::Parse(jwk, kEdDSA);
  EXPECT_TRUE(key.ok()) << key.status();
  return *std::move(key);
}

JsonValue Json(absl::string_view text) {
  absl::StatusOr<JsonValue> value = ParseJson(text);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status();
  return value.ok() ? *value : JsonValue();
}

TEST(DpopTest, AcceptsTheRfc9449ExampleOnceOnly) {
  DpopReplayCache cache;
  DpopRequest request;
  request.http_method = "POST";
  request.http_uri = "https://server.example.com/token";
  request.token_jkt = kRfc9449Jkt;
  const absl::Time now = kRfc9449Iat + absl::Seconds(5);

  absl::StatusOr<DpopProof> proof = VerifyDpopProof(kRfc9449Proof, request, now, kWindow, cache);
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_EQ(proof->jti, "-BwC3ESc6acc2lTc");
  EXPECT_EQ(proof->issued_at, kRfc9449Iat);
  EXPECT_EQ(proof->jkt, kRfc9449Jkt);

  absl::StatusOr<DpopProof> replayed =
      VerifyDpopProof(kRfc9449Proof, request, now + absl::Seconds(1), kWindow, cache);
  EXPECT_THAT(JwtErrorOf(replayed.status()), Optional(JwtError::kReplayed));
}

TEST(DpopTest, AthIsTheRfc9449HashOfTheAccessToken) {
  EXPECT_EQ(Base64UrlEncode(Sha256(kRfc9449AccessToken)), kRfc9449Ath);
}

class VerifyDpopProofTest : public ::testing::Test {
 protected:
  VerifyDpopProofTest() : proof_key_(ParseKey(kProofKey)) {
    request_.http_method = kMethod;
    request_.http_uri = kUri;
    request_.access_token = kRfc9449AccessToken;
    request_.token_jkt = proof_key_.thumbprint();
  }

  using Edit = std::function<void(JsonValue::Object& header, JsonValue::Object& claims)>;

  // A valid proof for request_, signed by `signer` (the proof key by default), after `edit`.
  std::string Proof(const Edit& edit = nullptr, const Jwk* signer = nullptr) const {
    JsonValue header = JsonValue::MakeObject();
    header.as_object()["typ"] = JsonValue::String("dpop+jwt");
    header.as_object()["alg"] = JsonValue::String("EdDSA");
    header.as_object()["jwk"] = Json(*proof_key_.PublicJwkJson());
    JsonValue claims = JsonValue::MakeObject();
    claims.as_object()["jti"] = JsonValue::String("e1j3V_bKic8-LAEB");
    claims.as_object()["htm"] = JsonValue::String(kMethod);
    claims.as_object()["htu"] = JsonValue::String(kUri);
    claims.as_object()["iat"] = JsonValue::Number(static_cast<double>(absl::ToUnixSeconds(kNow)));
    claims.as_object()["ath"] = JsonValue::String(kRfc9449Ath);
    if (edit) edit(header.as_object(), claims.as_object());
    absl::StatusOr<std::string> proof = SignJwt(CanonicalJson(header), CanonicalJson(claims),
                                                signer != nullptr ? *signer : proof_key_);
    EXPECT_TRUE(proof.ok()) << proof.status();
    return proof.ok() ? *proof : "";
  }

  absl::StatusOr<DpopProof> Verify(absl::string_view proof, absl::Time now = kNow) {
    return VerifyDpopProof(proof, request_, now, kWindow, cache_);
  }

  Jwk proof_key_;
  DpopRequest request_;
  DpopReplayCache cache_;
};

TEST_F(VerifyDpopProofTest, AcceptsAProofBoundToTheTokenAndItsKey) {
  absl::StatusOr<DpopProof> proof = Verify(Proof());
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_EQ(proof->jti, "e1j3V_bKic8-LAEB");
  EXPECT_EQ(proof->issued_at, kNow);
  EXPECT_EQ(proof->jkt, proof_key_.thumbprint());
  EXPECT_EQ(cache_.size(), 1u);
}

TEST_F(VerifyDpopProofTest, AcceptsWithinTheWindowAndUpToUriNormalization) {
  const struct {
    const char* name;
    Edit edit;
  } kCases[] = {
      {"issued 60 s ago",
       [](auto&, auto& claims) {
         claims["iat"] = JsonValue::Number(absl::ToUnixSeconds(kNow) - 60.0);
       }},
      {"issued 60 s ahead",
       [](auto&, auto& claims) {
         claims["iat"] = JsonValue::Number(absl::ToUnixSeconds(kNow) + 60.0);
       }},
      {"htu with a query and a fragment",
       [](auto&, auto& claims) {
         claims["htu"] = JsonValue::String(absl::StrCat(kUri, "?a=1#top"));
       }},
      {"htu with an upper-case host and the default port",
       [](auto&, auto& claims) {
         claims["htu"] = JsonValue::String("HTTPS://Resource.Example.ORG:443/protectedresource");
       }},
      {"typ with the media type prefix",
       [](auto& header, auto&) { header["typ"] = JsonValue::String("application/dpop+jwt"); }},
  };
  for (const auto& c : kCases) {
    DpopReplayCache fresh_cache;
    absl::StatusOr<DpopProof> proof =
        VerifyDpopProof(Proof(c.edit), request_, kNow, kWindow, fresh_cache);
    EXPECT_TRUE(proof.ok()) << c.name << ": " << proof.status();
  }
}

TEST_F(VerifyDpopProofTest, RefusesAProofThatDoesNotMatchTheRequest) {
  const std::string other_key_public = *ParseKey(kOtherKey).PublicJwkJson();
  const struct {
    const char* name;
    Edit edit;
    JwtError error;
  } kCases[] = {
      {"another method", [](auto&, auto& claims) { claims["htm"] = JsonValue::String("POST"); },
       JwtError::kWrongMethod},
      {"the method in lower case",
       [](auto&, auto& claims) { claims["htm"] = JsonValue::String("get"); },
       JwtError::kWrongMethod},
      {"another path",
       [](auto&, auto& claims) {
         claims["htu"] = JsonValue::String("https://resource.example.org/other");
       },
       JwtError::kWrongUrl},
      {"another host",
       [](auto&, auto& claims) {
         claims["htu"] = JsonValue::String("https://evil.example/protectedresource");
       },
       JwtError::kWrongUrl},
      {"another scheme",
       [](auto&, auto& claims) {
         claims["htu"] = JsonValue::String("http://resource.example.org/protectedresource");
       },
       JwtError::kWrongUrl},
      {"issued 61 s ago",
       [](auto&, auto& claims) {
         claims["iat"] = JsonValue::Number(absl::ToUnixSeconds(kNow) - 61.0);
       },
       JwtError::kExpired},
      {"issued 61 s ahead",
       [](auto&, auto& claims) {
         claims["iat"] = JsonValue::Number(absl::ToUnixSeconds(kNow) + 61.0);
       },
       JwtError::kNotYetValid},
      {"ath of another token",
       [](auto&, auto& claims) {
         claims["ath"] = JsonValue::String(Base64UrlEncode(Sha256("another token")));
       },
       JwtError::kWrongTokenHash},
      {"no ath", [](auto&, auto& claims) { claims.erase("ath"); }, JwtError::kMissingClaim},
      {"no jti", [](auto&, auto& claims) { claims.erase("jti"); }, JwtError::kMissingClaim},
      // A proof made for no request in particular (h38).
      {"an empty htm", [](auto&, auto& claims) { claims["htm"] = JsonValue::String(""); },
       JwtError::kWrongMethod},
      {"a relative htu",
       [](auto&, auto& claims) { claims["htu"] = JsonValue::String("/protectedresource"); },
       JwtError::kWrongUrl},
      {"an empty htu", [](auto&, auto& claims) { claims["htu"] = JsonValue::String(""); },
       JwtError::kWrongUrl},
      {"no htm", [](auto&, auto& claims) { claims.erase("htm"); }, JwtError::kMissingClaim},
      {"no htu", [](auto&, auto& claims) { claims.erase("htu"); }, JwtError::kMissingClaim},
      {"no iat", [](auto&, auto& claims) { claims.erase("iat"); }, JwtError::kMissingClaim},
      {"empty jti", [](auto&, auto& claims) { claims["jti"] = JsonValue::String(""); },
       JwtError::kMalformed},
      {"jti of 257 bytes",
       [](auto&, auto& claims) { claims["jti"] = JsonValue::String(std::string(257, 'j')); },
       JwtError::kMalformed},
      {"typ JWT", [](auto& header, auto&) { header["typ"] = JsonValue::String("JWT"); },
       JwtError::kWrongType},
      {"no jwk header", [](auto& header, auto&) { header.erase("jwk"); }, JwtError::kMalformed},
      {"a private key in the jwk header",
       [](auto& header, auto&) { header["jwk"] = Json(kProofKey); }, JwtError::kMalformed},
      {"a jwk that is not the signer",
       [&other_key_public](auto& header, auto&) { header["jwk"] = Json(other_key_public); },
       JwtError::kBadSignature},
  };
  for (const auto& c : kCases) {
    DpopReplayCache fresh_cache;
    absl::StatusOr<DpopProof> proof =
        VerifyDpopProof(Proof(c.edit), request_, kNow, kWindow, fresh_cache);
    EXPECT_THAT(JwtErrorOf(proof.status()), Optional(c.error)) << c.name << ": " << proof.status();
    // A refused proof is not remembered.
    EXPECT_EQ(fresh_cache.size(), 0u) << c.name;
  }
}

// A caller that sends a proof must say which request it came with: an empty method or URI would
// match a proof made for no request in particular (h38).
TEST_F(VerifyDpopProofTest, RefusesAProofWhenTheCallerNamesNoRequest) {
  const std::string proof = Proof();
  DpopRequest no_method = request_;
  no_method.http_method = "";
  EXPECT_THAT(JwtErrorOf(VerifyDpopProof(proof, no_method, kNow, kWindow, cache_).status()),
              Optional(JwtError::kWrongUrl));
  DpopRequest no_uri = request_;
  no_uri.http_uri = "";
  EXPECT_THAT(JwtErrorOf(VerifyDpopProof(proof, no_uri, kNow, kWindow, cache_).status()),
              Optional(JwtError::kWrongUrl));
  EXPECT_EQ(cache_.size(), 0u);
}

// A proof made for no request in particular, presented by a caller who names the same nothing:
// the comparison alone would find them equal (review h40 showed the earlier cases could not
// fail without the checks).
TEST_F(VerifyDpopProofTest, RefusesAProofForNoRequestEvenWhenTheCallerNamesTheSame) {
  DpopRequest relative = request_;
  relative.http_uri = "/protectedresource";
  const std::string relative_proof =
      Proof([](auto&, auto& claims) { claims["htu"] = JsonValue::String("/protectedresource"); });
  EXPECT_THAT(JwtErrorOf(VerifyDpopProof(relative_proof, relative, kNow, kWindow, cache_).status()),
              Optional(JwtError::kWrongUrl));
  DpopRequest no_method = request_;
  no_method.http_method = "";
  const std::string methodless_proof =
      Proof([](auto&, auto& claims) { claims["htm"] = JsonValue::String(""); });
  EXPECT_THAT(
      JwtErrorOf(VerifyDpopProof(methodless_proof, no_method, kNow, kWindow, cache_).status()),
      Optional(JwtError::kWrongUrl));
  // And with the caller's method named, an empty htm is the proof's own fault.
  EXPECT_THAT(
      JwtErrorOf(VerifyDpopProof(methodless_proof, request_, kNow, kWindow, cache_).status()),
      Optional(JwtError::kWrongMethod));
  EXPECT_EQ(cache_.size(), 0u);
}

TEST_F(VerifyDpopProofTest, RefusesAProofForAnotherMethodOrUrlOfTheSameRequest) {
  const std::string proof = Proof();
  DpopRequest post = request_;
  post.http_method = "POST";
  EXPECT_THAT(JwtErrorOf(VerifyDpopProof(proof, post, kNow, kWindow, cache_).status()),
              Optional(JwtError::kWrongMethod));
  DpopRequest elsewhere = request_;
  elsewhere.http_uri = "https://resource.example.org/admin";
  EXPECT_THAT(JwtErrorOf(VerifyDpopProof(proof, elsewhere, kNow, kWindow, cache_).status()),
              Optional(JwtError::kWrongUrl));
}

TEST_F(VerifyDpopProofTest, TheProofKeyMustBeTheOneTheTokenIsBoundTo) {
  const Jwk other_key = ParseKey(kOtherKey);
  request_.token_jkt = other_key.thumbprint();
  EXPECT_THAT(JwtErrorOf(Verify(Proof()).status()), Optional(JwtError::kWrongKeyBinding));

  // A bearer token (no cnf.jkt) cannot be presented with a DPoP proof as if it were bound.
  request_.token_jkt = "";
  EXPECT_THAT(JwtErrorOf(Verify(Proof()).status()), Optional(JwtError::kWrongKeyBinding));
}

TEST_F(VerifyDpopProofTest, WithoutAnAccessTokenThereIsNoAthToCheck) {
  request_.access_token = "";
  request_.token_jkt = "";
  EXPECT_TRUE(Verify(Proof([](auto&, auto& claims) { claims.erase("ath"); })).ok());
}

TEST_F(VerifyDpopProofTest, ProofsMustBeSignedWithAnAsymmetricKey) {
  const std::string secret = std::string(32, 's');
  absl::StatusOr<Jwk> hmac = Jwk::Parse(
      absl::StrCat(R"({"kty":"oct","alg":"HS256","k":")", Base64UrlEncode(secret), R"("})"));
  ASSERT_TRUE(hmac.ok()) << hmac.status();
  const std::string proof = Proof(
      [&secret](auto& header, auto&) {
        header["alg"] = JsonValue::String("HS256");
        JsonValue::Object jwk;
        jwk["kty"] = JsonValue::String("oct");
        jwk["k"] = JsonValue::String(Base64UrlEncode(secret));
        header["jwk"] = JsonValue::MakeObject(std::move(jwk));
      },
      &*hmac);
  EXPECT_THAT(JwtErrorOf(Verify(proof).status()), Optional(JwtError::kAlgorithmNotAllowed));

  const std::string unsigned_proof =
      absl::StrCat(Base64UrlEncode(R"({"typ":"dpop+jwt","alg":"none"})"), ".",
                   Base64UrlEncode(R"({"jti":"x","htm":"GET","htu":"https://a/","iat":1})"), ".");
  EXPECT_THAT(JwtErrorOf(Verify(unsigned_proof).status()),
              Optional(JwtError::kAlgorithmNotAllowed));
}

TEST_F(VerifyDpopProofTest, AReplayedProofIsRefused) {
  const std::string proof = Proof();
  ASSERT_TRUE(Verify(proof).ok());
  EXPECT_THAT(JwtErrorOf(Verify(proof, kNow + absl::Seconds(30)).status()),
              Optional(JwtError::kReplayed));
  // Once out of the window it is refused as too old; the cache need not remember it any more.
  EXPECT_THAT(JwtErrorOf(Verify(proof, kNow + kWindow + absl::Seconds(1)).status()),
              Optional(JwtError::kExpired));
}

TEST_F(VerifyDpopProofTest, JtisAreRememberedPerKey) {
  ASSERT_TRUE(Verify(Proof()).ok());
  // The same jti under another key and for a request without a token: not a replay.
  const Jwk other_key = ParseKey(kOtherKey);
  request_.access_token = "";
  request_.token_jkt = "";
  const std::string other_proof = Proof(
      [&other_key](auto& header, auto& claims) {
        header["jwk"] = Json(*other_key.PublicJwkJson());
        claims.erase("ath");
      },
      &other_key);
  EXPECT_TRUE(Verify(other_proof).ok());
}

TEST_F(VerifyDpopProofTest, AFullReplayCacheRefusesNewProofs) {
  DpopReplayCache tiny_cache(/*capacity=*/1);
  ASSERT_TRUE(VerifyDpopProof(Proof(), request_, kNow, kWindow, tiny_cache).ok());
  const std::string second =
      Proof([](auto&, auto& claims) { claims["jti"] = JsonValue::String("second"); });
  absl::StatusOr<DpopProof> refused = VerifyDpopProof(second, request_, kNow, kWindow, tiny_cache);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(JwtErrorOf(refused.status()), Optional(JwtError::kReplayCacheFull));
}

TEST(NormalizedHtuTest, DropsWhatRfc9449IgnoresAndKeepsTheRest) {
  const struct {
    const char* uri;
    const char* normalized;
  } kCases[] = {
      {"https://a.example/p", "https://a.example/p"},
      {"https://a.example/p?q=1", "https://a.example/p"},
      {"https://a.example/p#f", "https://a.example/p"},
      {"https://a.example/p?q=1#f", "https://a.example/p"},
      {"HTTPS://A.Example/P", "https://a.example/P"},
      {"https://a.example:443/p", "https://a.example/p"},
      {"http://a.example:80/p", "http://a.example/p"},
      {"https://a.example:80/p", "https://a.example:80/p"},
      {"http://a.example:8080/p", "http://a.example:8080/p"},
      {"https://a.example", "https://a.example/"},
      {"https://a.example?x", "https://a.example/"},
      {"https://[::1]:443/p", "https://[::1]/p"},
      {"not a uri?x", "not a uri"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(NormalizedHtu(c.uri), c.normalized) << c.uri;
  }
}

}  // namespace
}  // namespace verdict
