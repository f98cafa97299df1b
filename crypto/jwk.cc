#include "crypto/jwk.h"

#include <openssl/bn.h>
#include <openssl/curve25519.h>
#include <openssl/ec.h>
#include <openssl/ec_key.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/mem.h>
#include <openssl/nid.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "crypto/sha256.h"
#include "crypto/token.h"

namespace verdict {
namespace jwk_internal {

// Each key type can do exactly one of verdict's algorithms, so a key's allowlist, once narrowed,
// is that one algorithm.
struct KeyMaterial {
  KeyMaterial() = default;
  KeyMaterial(const KeyMaterial&) = delete;
  KeyMaterial& operator=(const KeyMaterial&) = delete;
  ~KeyMaterial() {
    OPENSSL_cleanse(secret.data(), secret.size());
    OPENSSL_cleanse(&hmac_inner, sizeof(hmac_inner));
    OPENSSL_cleanse(&hmac_outer, sizeof(hmac_outer));
  }

  JwkType type = JwkType::kOct;
  JwsAlgorithm algorithm = JwsAlgorithm::kHS256;
  std::string kid;
  std::string thumbprint;
  std::string fingerprint;
  // The RFC 7638 members; empty for a symmetric key, whose only member is its secret.
  std::string public_jwk_json;
  // Ed25519: the 32-byte public key. Unused for the other types.
  std::string ed25519_public;
  // Ed25519: BoringSSL's 64-byte private key (seed || public), empty for a public key.
  // oct: the HMAC key.
  std::string secret;
  // P-256: the public point, and the private scalar when the JWK had "d".
  bssl::UniquePtr<EC_KEY> ec_key;
  // oct: SHA-256 after absorbing the padded key XOR ipad, and XOR opad (RFC 2104). Each MAC
  // starts from copies of these, so the key's two blocks are hashed once per key, not per MAC.
  SHA256_CTX hmac_inner = {};
  SHA256_CTX hmac_outer = {};
};

}  // namespace jwk_internal

namespace {

using jwk_internal::KeyMaterial;

constexpr size_t kEd25519KeyBytes = 32;
constexpr size_t kEd25519SignatureBytes = 64;
constexpr size_t kP256CoordinateBytes = 32;
constexpr size_t kEs256SignatureBytes = 2 * kP256CoordinateBytes;
constexpr size_t kHs256Bytes = 32;
// RFC 7518 section 3.2: an HS256 key must be at least as long as the hash output.
constexpr size_t kMinHmacKeyBytes = kHs256Bytes;

// BoringSSL leaves failures on a per-thread error queue; nothing here reads it.
struct ClearBoringSslErrorsOnExit {
  ~ClearBoringSslErrorsOnExit() { ERR_clear_error(); }
};

JwsAlgorithm AlgorithmOfType(JwkType type) {
  switch (type) {
    case JwkType::kEd25519:
      return JwsAlgorithm::kEdDSA;
    case JwkType::kP256:
      return JwsAlgorithm::kES256;
    case JwkType::kOct:
      return JwsAlgorithm::kHS256;
  }
  return JwsAlgorithm::kHS256;
}

absl::StatusOr<std::string> StringMember(const JsonValue& object, absl::string_view name) {
  const JsonValue* member = object.Find(name);
  if (member == nullptr) return absl::InvalidArgumentError(absl::StrCat("no \"", name, "\""));
  if (!member->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", name, "\" is not a string"));
  }
  return member->as_string();
}

absl::StatusOr<std::optional<std::string>> OptionalStringMember(const JsonValue& object,
                                                                absl::string_view name) {
  if (object.Find(name) == nullptr) return std::nullopt;
  return StringMember(object, name);
}

// The base64url member `name`, decoded; exactly `size` bytes unless `size` is 0.
absl::StatusOr<std::string> BytesMember(const JsonValue& object, absl::string_view name,
                                        size_t size) {
  absl::StatusOr<std::string> text = StringMember(object, name);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::string> bytes = Base64UrlDecode(*text);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", name, "\" is not base64url: ", bytes.status().message()));
  }
  if (size != 0 && bytes->size() != size) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", name, "\" has ", bytes->size(), " bytes, not ", size));
  }
  return bytes;
}

// The members RFC 7638 section 3.2 hashes, per kty.
absl::StatusOr<JsonValue> ThumbprintMembers(const JsonValue& jwk) {
  if (!jwk.is_object()) return absl::InvalidArgumentError("a JWK is a JSON object");
  absl::StatusOr<std::string> kty = StringMember(jwk, "kty");
  if (!kty.ok()) return kty.status();
  std::vector<absl::string_view> names;
  if (*kty == "EC") {
    names = {"crv", "kty", "x", "y"};
  } else if (*kty == "OKP") {
    names = {"crv", "kty", "x"};
  } else if (*kty == "RSA") {
    names = {"e", "kty", "n"};
  } else if (*kty == "oct") {
    names = {"k", "kty"};
  } else {
    return absl::UnimplementedError(absl::StrCat("no thumbprint is defined for kty ", *kty));
  }
  JsonValue::Object members;
  for (absl::string_view name : names) {
    absl::StatusOr<std::string> value = StringMember(jwk, name);
    if (!value.ok()) return value.status();
    members.emplace(std::string(name), JsonValue::String(*std::move(value)));
  }
  return JsonValue::MakeObject(std::move(members));
}

std::string KeyFingerprint(const JsonValue& jwk, absl::Span<const JwsAlgorithm> allowed) {
  std::string content = CanonicalJson(jwk);
  for (JwsAlgorithm algorithm : allowed)
    absl::StrAppend(&content, " ", JwsAlgorithmName(algorithm));
  return Sha256(content);
}

absl::StatusOr<JwkType> SupportedType(const JsonValue& jwk) {
  absl::StatusOr<std::string> kty = StringMember(jwk, "kty");
  if (!kty.ok()) return kty.status();
  if (*kty == "oct") return JwkType::kOct;
  if (*kty != "OKP" && *kty != "EC") {
    return absl::UnimplementedError(absl::StrCat("kty ", *kty, " is not supported"));
  }
  absl::StatusOr<std::string> crv = StringMember(jwk, "crv");
  if (!crv.ok()) return crv.status();
  if (*kty == "OKP" && *crv == "Ed25519") return JwkType::kEd25519;
  if (*kty == "EC" && *crv == "P-256") return JwkType::kP256;
  return absl::UnimplementedError(
      absl::StrCat("kty ", *kty, " on curve ", *crv, " is not supported"));
}

// The key type's algorithm, if "alg" and `allowed` both let it through.
absl::StatusOr<JwsAlgorithm> NarrowAlgorithm(const JsonValue& jwk, JwkType type,
                                             absl::Span<const JwsAlgorithm> allowed) {
  const JwsAlgorithm natural = AlgorithmOfType(type);
  absl::StatusOr<std::optional<std::string>> alg = OptionalStringMember(jwk, "alg");
  if (!alg.ok()) return alg.status();
  if (!alg->has_value() && allowed.empty()) {
    return absl::InvalidArgumentError("the key has no \"alg\" and no algorithm allowlist applies");
  }
  if (alg->has_value()) {
    const std::string& name = **alg;
    std::optional<JwsAlgorithm> named = JwsAlgorithmFromName(name);
    if (!named.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("\"alg\" ", name, " is not accepted"));
    }
    if (*named != natural) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"alg\" ", name, " does not fit the key type"));
    }
  }
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), natural) == allowed.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the key can only do ", JwsAlgorithmName(natural), ", which the allowlist does not hold"));
  }
  return natural;
}

absl::Status ParseEd25519(const JsonValue& jwk, KeyMaterial& key) {
  absl::StatusOr<std::string> x = BytesMember(jwk, "x", kEd25519KeyBytes);
  if (!x.ok()) return x.status();
  key.ed25519_public = *std::move(x);
  if (jwk.Find("d") == nullptr) return absl::OkStatus();

  absl::StatusOr<std::string> seed = BytesMember(jwk, "d", kEd25519KeyBytes);
  if (!seed.ok()) return seed.status();
  uint8_t derived_public[kEd25519KeyBytes];
  key.secret.resize(2 * kEd25519KeyBytes);
  ED25519_keypair_from_seed(derived_public, reinterpret_cast<uint8_t*>(key.secret.data()),
                            reinterpret_cast<const uint8_t*>(seed->data()));
  OPENSSL_cleanse(seed->data(), seed->size());
  if (absl::string_view(reinterpret_cast<const char*>(derived_public), kEd25519KeyBytes) !=
      key.ed25519_public) {
    return absl::InvalidArgumentError("\"d\" is not the private key of \"x\"");
  }
  return absl::OkStatus();
}

bssl::UniquePtr<BIGNUM> BignumFromBytes(absl::string_view bytes) {
  return bssl::UniquePtr<BIGNUM>(
      BN_bin2bn(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), nullptr));
}

absl::Status ParseP256(const JsonValue& jwk, KeyMaterial& key) {
  ClearBoringSslErrorsOnExit clear_errors;
  absl::StatusOr<std::string> x = BytesMember(jwk, "x", kP256CoordinateBytes);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::string> y = BytesMember(jwk, "y", kP256CoordinateBytes);
  if (!y.ok()) return y.status();
  key.ec_key.reset(EC_KEY_new_by_curve_name(NID_X9_62_prime256v1));
  bssl::UniquePtr<BIGNUM> x_number = BignumFromBytes(*x);
  bssl::UniquePtr<BIGNUM> y_number = BignumFromBytes(*y);
  if (key.ec_key == nullptr || x_number == nullptr || y_number == nullptr) {
    return absl::ResourceExhaustedError("out of memory parsing a P-256 key");
  }
  // Checks that the point is on the curve.
  if (!EC_KEY_set_public_key_affine_coordinates(key.ec_key.get(), x_number.get(), y_number.get())) {
    return absl::InvalidArgumentError("\"x\", \"y\" is not a point on P-256");
  }
  if (jwk.Find("d") == nullptr) return absl::OkStatus();

  absl::StatusOr<std::string> d = BytesMember(jwk, "d", kP256CoordinateBytes);
  if (!d.ok()) return d.status();
  bssl::UniquePtr<BIGNUM> scalar = BignumFromBytes(*d);
  OPENSSL_cleanse(d->data(), d->size());
  const bool valid = scalar != nullptr && EC_KEY_set_private_key(key.ec_key.get(), scalar.get()) &&
                     EC_KEY_check_key(key.ec_key.get());
  if (scalar != nullptr) BN_clear(scalar.get());
  if (!valid) return absl::InvalidArgumentError("\"d\" is not the private key of \"x\", \"y\"");
  return absl::OkStatus();
}

// RFC 2104: the key, hashed first when longer than a block, zero-padded to one block and XORed
// with ipad and opad, starts the inner and the outer hash.
void PrepareHmacStates(KeyMaterial& key) {
  uint8_t block[SHA256_CBLOCK] = {};
  if (key.secret.size() > SHA256_CBLOCK) {
    SHA256(reinterpret_cast<const uint8_t*>(key.secret.data()), key.secret.size(), block);
  } else {
    std::copy(key.secret.begin(), key.secret.end(), block);
  }
  uint8_t padded[SHA256_CBLOCK];
  for (const auto& [state, pad] :
       {std::pair<SHA256_CTX*, uint8_t>{&key.hmac_inner, 0x36}, {&key.hmac_outer, 0x5c}}) {
    for (size_t i = 0; i < SHA256_CBLOCK; ++i) padded[i] = block[i] ^ pad;
    SHA256_Init(state);
    SHA256_Update(state, padded, sizeof(padded));
  }
  OPENSSL_cleanse(block, sizeof(block));
  OPENSSL_cleanse(padded, sizeof(padded));
}

absl::Status ParseOct(const JsonValue& jwk, KeyMaterial& key) {
  absl::StatusOr<std::string> secret = BytesMember(jwk, "k", 0);
  if (!secret.ok()) return secret.status();
  key.secret = *std::move(secret);
  if (key.secret.size() < kMinHmacKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"k\" has ", key.secret.size(), " bytes; HS256 needs at least ", kMinHmacKeyBytes));
  }
  PrepareHmacStates(key);
  return absl::OkStatus();
}

bool VerifyEd25519(const KeyMaterial& key, absl::string_view signing_input,
                   absl::string_view signature) {
  if (signature.size() != kEd25519SignatureBytes) return false;
  return ED25519_verify(reinterpret_cast<const uint8_t*>(signing_input.data()),
                        signing_input.size(), reinterpret_cast<const uint8_t*>(signature.data()),
                        reinterpret_cast<const uint8_t*>(key.ed25519_public.data())) == 1;
}

bool VerifyEs256(const KeyMaterial& key, absl::string_view signing_input,
                 absl::string_view signature) {
  if (signature.size() != kEs256SignatureBytes) return false;
  ClearBoringSslErrorsOnExit clear_errors;
  bssl::UniquePtr<BIGNUM> r = BignumFromBytes(signature.substr(0, kP256CoordinateBytes));
  bssl::UniquePtr<BIGNUM> s = BignumFromBytes(signature.substr(kP256CoordinateBytes));
  bssl::UniquePtr<ECDSA_SIG> parsed(ECDSA_SIG_new());
  if (r == nullptr || s == nullptr || parsed == nullptr) return false;
  if (!ECDSA_SIG_set0(parsed.get(), r.get(), s.get())) return false;
  r.release();  // Owned by `parsed` now.
  s.release();
  const std::string digest = Sha256(signing_input);
  return ECDSA_do_verify(reinterpret_cast<const uint8_t*>(digest.data()), digest.size(),
                         parsed.get(), key.ec_key.get()) == 1;
}

std::string Hs256(const KeyMaterial& key, absl::string_view signing_input) {
  SHA256_CTX hash = key.hmac_inner;
  SHA256_Update(&hash, signing_input.data(), signing_input.size());
  uint8_t inner[SHA256_DIGEST_LENGTH];
  SHA256_Final(inner, &hash);
  hash = key.hmac_outer;
  SHA256_Update(&hash, inner, sizeof(inner));
  std::string mac(kHs256Bytes, '\0');
  SHA256_Final(reinterpret_cast<uint8_t*>(mac.data()), &hash);
  OPENSSL_cleanse(&hash, sizeof(hash));
  return mac;
}

std::string SignEd25519(const KeyMaterial& key, absl::string_view signing_input) {
  std::string signature(kEd25519SignatureBytes, '\0');
  ED25519_sign(reinterpret_cast<uint8_t*>(signature.data()),
               reinterpret_cast<const uint8_t*>(signing_input.data()), signing_input.size(),
               reinterpret_cast<const uint8_t*>(key.secret.data()));
  return signature;
}

absl::StatusOr<std::string> SignEs256(const KeyMaterial& key, absl::string_view signing_input) {
  ClearBoringSslErrorsOnExit clear_errors;
  const std::string digest = Sha256(signing_input);
  bssl::UniquePtr<ECDSA_SIG> parsed(ECDSA_do_sign(reinterpret_cast<const uint8_t*>(digest.data()),
                                                  digest.size(), key.ec_key.get()));
  if (parsed == nullptr) return absl::InternalError("ECDSA signing failed");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(parsed.get(), &r, &s);
  std::string signature(kEs256SignatureBytes, '\0');
  uint8_t* out = reinterpret_cast<uint8_t*>(signature.data());
  if (!BN_bn2bin_padded(out, kP256CoordinateBytes, r) ||
      !BN_bn2bin_padded(out + kP256CoordinateBytes, kP256CoordinateBytes, s)) {
    return absl::InternalError("ECDSA signature does not fit 64 bytes");
  }
  return signature;
}

}  // namespace

absl::string_view JwsAlgorithmName(JwsAlgorithm algorithm) {
  switch (algorithm) {
    case JwsAlgorithm::kEdDSA:
      return "EdDSA";
    case JwsAlgorithm::kES256:
      return "ES256";
    case JwsAlgorithm::kHS256:
      return "HS256";
  }
  return "";
}

std::optional<JwsAlgorithm> JwsAlgorithmFromName(absl::string_view name) {
  for (JwsAlgorithm algorithm :
       {JwsAlgorithm::kEdDSA, JwsAlgorithm::kES256, JwsAlgorithm::kHS256}) {
    if (name == JwsAlgorithmName(algorithm)) return algorithm;
  }
  return std::nullopt;
}

bool IsSymmetric(JwsAlgorithm algorithm) { return algorithm == JwsAlgorithm::kHS256; }

absl::StatusOr<std::string> JwkThumbprint(const JsonValue& jwk) {
  absl::StatusOr<JsonValue> members = ThumbprintMembers(jwk);
  if (!members.ok()) return members.status();
  return Base64UrlEncode(Sha256(CanonicalJson(*members)));
}

absl::StatusOr<Jwk> Jwk::FromJson(const JsonValue& jwk, absl::Span<const JwsAlgorithm> allowed) {
  if (!jwk.is_object()) return absl::InvalidArgumentError("a JWK is a JSON object");
  return FromJsonWithFingerprint(jwk, allowed, KeyFingerprint(jwk, allowed));
}

absl::StatusOr<Jwk> Jwk::Parse(absl::string_view jwk_json, absl::Span<const JwsAlgorithm> allowed) {
  absl::StatusOr<JsonValue> jwk = ParseJson(jwk_json);
  if (!jwk.ok()) return jwk.status();
  return FromJson(*jwk, allowed);
}

absl::StatusOr<Jwk> Jwk::FromJsonWithFingerprint(const JsonValue& jwk,
                                                 absl::Span<const JwsAlgorithm> allowed,
                                                 std::string fingerprint) {
  if (!jwk.is_object()) return absl::InvalidArgumentError("a JWK is a JSON object");
  absl::StatusOr<std::optional<std::string>> use = OptionalStringMember(jwk, "use");
  if (!use.ok()) return use.status();
  if (use->has_value() && **use != "sig") {
    return absl::UnimplementedError(absl::StrCat("a key for \"use\" ", **use, " cannot sign"));
  }
  absl::StatusOr<JwkType> type = SupportedType(jwk);
  if (!type.ok()) return type.status();
  absl::StatusOr<JwsAlgorithm> algorithm = NarrowAlgorithm(jwk, *type, allowed);
  if (!algorithm.ok()) return algorithm.status();
  absl::StatusOr<std::optional<std::string>> kid = OptionalStringMember(jwk, "kid");
  if (!kid.ok()) return kid.status();

  auto key = std::make_shared<KeyMaterial>();
  key->type = *type;
  key->algorithm = *algorithm;
  key->kid = kid->value_or("");
  key->fingerprint = std::move(fingerprint);
  absl::Status error;
  switch (*type) {
    case JwkType::kEd25519:
      error = ParseEd25519(jwk, *key);
      break;
    case JwkType::kP256:
      error = ParseP256(jwk, *key);
      break;
    case JwkType::kOct:
      error = ParseOct(jwk, *key);
      break;
  }
  if (!error.ok()) return error;

  absl::StatusOr<JsonValue> thumbprint_members = ThumbprintMembers(jwk);
  if (!thumbprint_members.ok()) return thumbprint_members.status();
  const std::string canonical_members = CanonicalJson(*thumbprint_members);
  key->thumbprint = Base64UrlEncode(Sha256(canonical_members));
  if (!IsSymmetric(key->algorithm)) key->public_jwk_json = canonical_members;
  return Jwk(std::move(key));
}

JwkType Jwk::type() const { return material_->type; }

const std::string& Jwk::kid() const { return material_->kid; }

bool Jwk::Allows(JwsAlgorithm algorithm) const { return algorithm == material_->algorithm; }

bool Jwk::has_private_part() const {
  switch (material_->type) {
    case JwkType::kEd25519:
      return !material_->secret.empty();
    case JwkType::kP256:
      return EC_KEY_get0_private_key(material_->ec_key.get()) != nullptr;
    case JwkType::kOct:
      return true;
  }
  return false;
}

const std::string& Jwk::thumbprint() const { return material_->thumbprint; }

const std::string& Jwk::fingerprint() const { return material_->fingerprint; }

absl::StatusOr<std::string> Jwk::PublicJwkJson() const {
  if (material_->public_jwk_json.empty()) {
    return absl::FailedPreconditionError("a symmetric key has no public part");
  }
  return material_->public_jwk_json;
}

bool Jwk::Verify(JwsAlgorithm algorithm, absl::string_view signing_input,
                 absl::string_view signature) const {
  if (!Allows(algorithm)) return false;
  switch (algorithm) {
    case JwsAlgorithm::kEdDSA:
      return VerifyEd25519(*material_, signing_input, signature);
    case JwsAlgorithm::kES256:
      return VerifyEs256(*material_, signing_input, signature);
    case JwsAlgorithm::kHS256:
      return ConstantTimeEquals(Hs256(*material_, signing_input), signature);
  }
  return false;
}

absl::StatusOr<std::string> Jwk::Sign(JwsAlgorithm algorithm,
                                      absl::string_view signing_input) const {
  if (!Allows(algorithm)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the key does not allow ", JwsAlgorithmName(algorithm)));
  }
  if (!has_private_part()) return absl::FailedPreconditionError("the key has no private part");
  switch (algorithm) {
    case JwsAlgorithm::kEdDSA:
      return SignEd25519(*material_, signing_input);
    case JwsAlgorithm::kES256:
      return SignEs256(*material_, signing_input);
    case JwsAlgorithm::kHS256:
      return Hs256(*material_, signing_input);
  }
  return absl::InternalError("unknown algorithm");
}

absl::StatusOr<Jwk> JwkCache::FromJson(const JsonValue& jwk,
                                       absl::Span<const JwsAlgorithm> allowed) {
  if (!jwk.is_object()) return absl::InvalidArgumentError("a JWK is a JSON object");
  std::string fingerprint = KeyFingerprint(jwk, allowed);
  {
    absl::MutexLock lock(&mu_);
    auto it = by_fingerprint_.find(fingerprint);
    if (it != by_fingerprint_.end()) return it->second;
  }
  // Parsed outside the lock: two threads may parse the same new key, and either result is fine.
  absl::StatusOr<Jwk> key = Jwk::FromJsonWithFingerprint(jwk, allowed, fingerprint);
  if (!key.ok()) return key.status();
  absl::MutexLock lock(&mu_);
  if (by_fingerprint_.size() >= max_entries_) by_fingerprint_.clear();
  by_fingerprint_.emplace(std::move(fingerprint), *key);
  return key;
}

size_t JwkCache::size() const {
  absl::MutexLock lock(&mu_);
  return by_fingerprint_.size();
}

absl::StatusOr<KeySet> KeySet::Parse(
    absl::string_view jwks_json,
    absl::FunctionRef<absl::StatusOr<Jwk>(const JsonValue&)> parse_key) {
  absl::StatusOr<JsonValue> jwks = ParseJson(jwks_json);
  if (!jwks.ok()) return jwks.status();
  const JsonValue* keys = jwks->Find("keys");
  if (keys == nullptr || !keys->is_array()) {
    return absl::InvalidArgumentError("a JWK Set is an object with a \"keys\" array");
  }
  KeySet set;
  for (size_t i = 0; i < keys->as_array().size(); ++i) {
    const JsonValue& entry = keys->as_array()[i];
    absl::StatusOr<Jwk> key = parse_key(entry);
    if (absl::IsUnimplemented(key.status())) {
      // RFC 7517 section 5: skipped, but said, so that a token naming it is not a mystery.
      const JsonValue* kid = entry.Find("kid");
      set.skipped_.push_back(absl::StrCat("keys[", i, "]",
                                          kid != nullptr && kid->is_string()
                                              ? absl::StrCat(" (kid \"", kid->as_string(), "\")")
                                              : "",
                                          ": ", key.status().message()));
      continue;
    }
    absl::Status added = key.ok() ? set.Add(*std::move(key)) : key.status();
    if (!added.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("keys[", i, "]: ", added.message()));
    }
  }
  return set;
}

std::vector<std::string> KeySet::kids() const {
  std::vector<std::string> kids;
  for (const auto& [kid, key] : by_kid_) kids.push_back(kid);
  std::sort(kids.begin(), kids.end());
  return kids;
}

absl::StatusOr<KeySet> KeySet::FromJwks(absl::string_view jwks_json,
                                        absl::Span<const JwsAlgorithm> allowed) {
  return Parse(jwks_json, [allowed](const JsonValue& jwk) { return Jwk::FromJson(jwk, allowed); });
}

absl::StatusOr<KeySet> KeySet::FromJwks(absl::string_view jwks_json,
                                        absl::Span<const JwsAlgorithm> allowed, JwkCache& cache) {
  return Parse(jwks_json,
               [allowed, &cache](const JsonValue& jwk) { return cache.FromJson(jwk, allowed); });
}

absl::Status KeySet::Add(Jwk key) {
  if (key.kid().empty()) return absl::InvalidArgumentError("a key in a set needs a \"kid\"");
  std::string kid = key.kid();
  if (!by_kid_.try_emplace(kid, std::move(key)).second) {
    return absl::InvalidArgumentError(absl::StrCat("kid ", kid, " appears twice"));
  }
  return absl::OkStatus();
}

const Jwk* KeySet::Find(absl::string_view kid) const {
  auto it = by_kid_.find(kid);
  return it == by_kid_.end() ? nullptr : &it->second;
}

}  // namespace verdict
