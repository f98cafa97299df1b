#include "crypto/secret_hash.h"

#include <cstring>
#include <map>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "argon2.h"
#include "crypto/token.h"

namespace verdict {
namespace {

constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;

// The encoded hash of a secret nobody knows, one per parameter set in use (in practice one).
const std::string& DummyEncodedHash(const SecretHashParams& params) {
  static absl::Mutex mutex(absl::kConstInit);
  static auto* dummies = new std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::string>();
  const auto key = std::make_tuple(params.time_cost, params.memory_kib, params.parallelism);
  absl::MutexLock lock(&mutex);
  auto it = dummies->find(key);
  if (it == dummies->end()) {
    // Parameters that cannot hash leave an empty dummy: verifying against it fails at once,
    // just as a real verification with them would.
    it = dummies->emplace(key, HashSecret(RandomBytes(kHashBytes), params).value_or("")).first;
  }
  return it->second;
}

}  // namespace

absl::StatusOr<std::string> HashSecret(absl::string_view secret, const SecretHashParams& params) {
  const std::string salt = RandomBytes(kSaltBytes);
  std::string encoded(argon2_encodedlen(params.time_cost, params.memory_kib, params.parallelism,
                                        kSaltBytes, kHashBytes, Argon2_id),
                      '\0');
  const int result = argon2id_hash_encoded(params.time_cost, params.memory_kib, params.parallelism,
                                           secret.data(), secret.size(), salt.data(), salt.size(),
                                           kHashBytes, &encoded[0], encoded.size());
  if (result != ARGON2_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("argon2id hashing failed: ", argon2_error_message(result)));
  }
  encoded.resize(std::strlen(encoded.c_str()));  // the buffer's length counts a terminator
  return encoded;
}

bool VerifySecret(absl::string_view encoded, absl::string_view secret) {
  // argon2 reads a C string: copy so the view need not be terminated (and cannot hide a NUL).
  const std::string encoded_string(encoded);
  if (encoded_string.size() != std::strlen(encoded_string.c_str())) return false;
  return argon2id_verify(encoded_string.c_str(), secret.data(), secret.size()) == ARGON2_OK;
}

void BurnVerificationTime(const SecretHashParams& params) {
  // The result is meaningless: only the work matters.
  VerifySecret(DummyEncodedHash(params), "");
}

}  // namespace verdict
