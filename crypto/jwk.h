// JSON Web Keys (RFC 7517) for the three JWS algorithms verdict accepts: EdDSA over Ed25519
// (RFC 8037, kty "OKP"), ES256 over P-256 (kty "EC") and HS256 (kty "oct"). Every key carries an
// algorithm allowlist, so a token can never pick how its own signature is checked: "none" is not
// an algorithm here at all, and an HMAC secret is never a public key, nor the other way round.
//
//   absl::StatusOr<KeySet> keys = KeySet::FromJwks(jwks_json, {JwsAlgorithm::kEdDSA});
//   const Jwk* key = keys->Find(kid);
//   if (key != nullptr && key->Allows(alg) && key->Verify(alg, signing_input, signature)) ...
//
// Parsing a key validates it (the point is on the curve, a private part matches its public part)
// and computes its thumbprint. JwkCache keeps parsed keys by a fingerprint of their content, so
// re-reading a key set (from the store, on every call) is cheap while a key rotated in place under
// the same kid is re-parsed at once.
#ifndef VERDICT_CRYPTO_JWK_H_
#define VERDICT_CRYPTO_JWK_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "common/json.h"

namespace verdict {

namespace jwk_internal {
struct KeyMaterial;  // Defined in jwk.cc.
}  // namespace jwk_internal

enum class JwsAlgorithm { kEdDSA, kES256, kHS256 };

// The "alg" spelling: "EdDSA", "ES256", "HS256".
absl::string_view JwsAlgorithmName(JwsAlgorithm algorithm);
// nullopt for every other name, "none" included.
std::optional<JwsAlgorithm> JwsAlgorithmFromName(absl::string_view name);
// HS256 is the only symmetric one: its key is a shared secret.
bool IsSymmetric(JwsAlgorithm algorithm);

enum class JwkType { kEd25519, kP256, kOct };

// RFC 7638 thumbprint: base64url(SHA-256) of the key's required members in canonical JSON.
// Works on any key type RFC 7638 names (EC, OKP, RSA, oct), since it only reads JSON members.
absl::StatusOr<std::string> JwkThumbprint(const JsonValue& jwk);

// One validated key. Immutable and cheap to copy (copies share the parsed key); private material
// is wiped when the last copy goes.
class Jwk {
 public:
  // Parses one JWK object. The key may sign or verify with the algorithms its type can do, narrowed
  // by its "alg" member and by `allowed` (when not empty); with neither to narrow it, or with
  // nothing left after narrowing, the key is rejected. INVALID_ARGUMENT for a malformed or
  // inconsistent key; UNIMPLEMENTED for a well-formed key verdict cannot use for signatures
  // (another kty or curve, or "use" other than "sig").
  static absl::StatusOr<Jwk> FromJson(const JsonValue& jwk,
                                      absl::Span<const JwsAlgorithm> allowed = {});
  static absl::StatusOr<Jwk> Parse(absl::string_view jwk_json,
                                   absl::Span<const JwsAlgorithm> allowed = {});

  JwkType type() const;
  // Empty when the key has no "kid".
  const std::string& kid() const;
  bool Allows(JwsAlgorithm algorithm) const;
  // True when the key can sign: a symmetric secret, or an asymmetric key with its "d".
  bool has_private_part() const;
  // RFC 7638, computed once at parse.
  const std::string& thumbprint() const;
  // SHA-256 (raw) of the canonical JSON the key was parsed from and of its allowlist: equal
  // fingerprints mean an identical key.
  const std::string& fingerprint() const;
  // The public members RFC 7638 names (crv, kty, x[, y]) as canonical JSON, e.g. for the "jwk"
  // header of a DPoP proof. FAILED_PRECONDITION for a symmetric key, which has none.
  absl::StatusOr<std::string> PublicJwkJson() const;

  // True only when the key allows `algorithm` and `signature` is a valid signature of
  // `signing_input` under it (ES256: raw r||s, 64 bytes, per RFC 7518 section 3.4). The HMAC
  // comparison is constant-time.
  bool Verify(JwsAlgorithm algorithm, absl::string_view signing_input,
              absl::string_view signature) const;
  // FAILED_PRECONDITION unless the key allows `algorithm` and has a private part.
  absl::StatusOr<std::string> Sign(JwsAlgorithm algorithm, absl::string_view signing_input) const;

 private:
  friend class JwkCache;

  // `fingerprint` is KeyFingerprint(jwk, allowed), which the cache has computed already.
  static absl::StatusOr<Jwk> FromJsonWithFingerprint(const JsonValue& jwk,
                                                     absl::Span<const JwsAlgorithm> allowed,
                                                     std::string fingerprint);
  explicit Jwk(std::shared_ptr<const jwk_internal::KeyMaterial> material)
      : material_(std::move(material)) {}

  std::shared_ptr<const jwk_internal::KeyMaterial> material_;
};

// Parsed keys by fingerprint, shared by every key set built through it. Thread-safe. When it holds
// `max_entries` keys it starts over, which only costs re-parsing: keys rotated out are dropped.
class JwkCache {
 public:
  explicit JwkCache(size_t max_entries = 256) : max_entries_(max_entries) {}
  JwkCache(const JwkCache&) = delete;
  JwkCache& operator=(const JwkCache&) = delete;

  // As Jwk::FromJson, but returns the earlier parse of an identical key when there is one.
  absl::StatusOr<Jwk> FromJson(const JsonValue& jwk, absl::Span<const JwsAlgorithm> allowed = {});

  size_t size() const;

 private:
  const size_t max_entries_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Jwk> by_fingerprint_ ABSL_GUARDED_BY(mu_);
};

// Keys chosen by kid.
class KeySet {
 public:
  KeySet() = default;

  // Parses a JWK Set ({"keys": [...]}). Keys verdict cannot use are skipped, as RFC 7517 section 5
  // asks; a malformed key, a key without "kid" or a kid seen twice is INVALID_ARGUMENT.
  static absl::StatusOr<KeySet> FromJwks(absl::string_view jwks_json,
                                         absl::Span<const JwsAlgorithm> allowed = {});
  // The same, reusing keys `cache` has already parsed.
  static absl::StatusOr<KeySet> FromJwks(absl::string_view jwks_json,
                                         absl::Span<const JwsAlgorithm> allowed, JwkCache& cache);

  // INVALID_ARGUMENT when the key has no kid or its kid is taken.
  absl::Status Add(Jwk key);

  // The key with this kid, or nullptr; valid while the set lives and is not added to.
  const Jwk* Find(absl::string_view kid) const;
  size_t size() const { return by_kid_.size(); }
  // Every kid, sorted.
  std::vector<std::string> kids() const;
  // The keys FromJwks skipped, each as "keys[i] (kid "k"): why", in the file's order.
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  // FromJwks, each key read by `parse_key`.
  static absl::StatusOr<KeySet> Parse(
      absl::string_view jwks_json,
      absl::FunctionRef<absl::StatusOr<Jwk>(const JsonValue&)> parse_key);

  absl::flat_hash_map<std::string, Jwk> by_kid_;
  std::vector<std::string> skipped_;
};

}  // namespace verdict

#endif  // VERDICT_CRYPTO_JWK_H_
