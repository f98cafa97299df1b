// Keys, JWT access tokens and DPoP proofs for tests of the JWT decision path (testonly).
//
//   TestSigningKey key = TestSigningKey::NewEd25519("k1");
//   AccessTokenSpec spec = DefaultAccessTokenSpec("agt_a", now);
//   std::string token = SignAccessToken(key, spec);
//   std::string jwks = JwksOf({key});   // what a --jwks_file holds
#ifndef VERDICT_DECISION_ACCESS_TOKEN_TEST_SUPPORT_H_
#define VERDICT_DECISION_ACCESS_TOKEN_TEST_SUPPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

inline constexpr char kTestIssuer[] = "https://issuer.test";
inline constexpr char kTestAudience[] = "verdict";

struct TestSigningKey {
  std::string kid;
  std::string alg;               // "EdDSA", "ES256" or "HS256"
  std::string private_jwk_json;  // signs
  // Verifies: what a JWKS file or the store holds (for HS256, the secret itself).
  std::string public_jwk_json;

  // A fresh random key each call.
  static TestSigningKey NewEd25519(absl::string_view kid);
  static TestSigningKey NewHs256(absl::string_view kid);
  // The RFC 7515 appendix A.3 P-256 key.
  static TestSigningKey Es256(absl::string_view kid);

  // The key as the store keeps it, allowing its own algorithm.
  SigningKey AsStored() const;
  // RFC 7638, for a token's cnf.jkt.
  std::string Thumbprint() const;
};

// {"keys":[...]} of the public JWKs.
std::string JwksOf(const std::vector<TestSigningKey>& keys);

struct AccessTokenSpec {
  std::string typ = "at+jwt";
  std::string alg;  // "": the key's
  std::string kid;  // "": the key's
  std::string issuer = kTestIssuer;
  std::string audience = kTestAudience;
  std::string subject;
  std::string jti = "jti-1";
  absl::Time issued_at;
  absl::Time expires_at;
  std::optional<absl::Time> not_before;
  std::string cnf_jkt;  // "": a bearer token
};

// A token for `subject` issued at `now`, valid for five minutes.
AccessTokenSpec DefaultAccessTokenSpec(absl::string_view subject, absl::Time now);

// Signed with the key's private part; an "alg" the key cannot do is signed with its own anyway,
// so the header lies (what an attacker would send).
std::string SignAccessToken(const TestSigningKey& key, const AccessTokenSpec& spec);

struct DpopProofSpec {
  std::string method = "POST";
  std::string uri = "https://api.test/v1/docs";
  std::string access_token;  // hashed into "ath"
  absl::Time issued_at;
  std::string jti = "proof-1";
};

// A DPoP proof signed by `proof_key` (EdDSA or ES256), its public key in the header.
std::string SignDpopProof(const TestSigningKey& proof_key, const DpopProofSpec& spec);

}  // namespace verdict

#endif  // VERDICT_DECISION_ACCESS_TOKEN_TEST_SUPPORT_H_
