// Argon2id hashes for admin credentials, in the PHC encoded form that carries its own parameters
// and salt ("$argon2id$v=19$m=65536,t=3,p=1$<salt>$<hash>").
//
//   absl::StatusOr<std::string> encoded = HashSecret(secret);   // store *encoded
//   if (VerifySecret(stored_encoded, presented)) ...
//   if (no credential is stored for that name) BurnVerificationTime();  // answer just as slowly
//
// Hashing and verifying are deliberately slow (tens of milliseconds and 64 MiB at the production
// parameters): keep them off hot paths.
#ifndef VERDICT_CRYPTO_SECRET_HASH_H_
#define VERDICT_CRYPTO_SECRET_HASH_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

// The defaults are the production parameters; tests may lower them to run fast.
struct SecretHashParams {
  uint32_t time_cost = 3;           // passes over memory
  uint32_t memory_kib = 64 * 1024;  // 64 MiB
  uint32_t parallelism = 1;         // lanes
};

// A fresh 16-byte salt from the CSPRNG and a 32-byte Argon2id hash, encoded. INVALID_ARGUMENT
// when the parameters are outside what Argon2 accepts.
absl::StatusOr<std::string> HashSecret(absl::string_view secret,
                                       const SecretHashParams& params = {});

// True when `secret` hashes to `encoded` under the parameters and salt that `encoded` carries.
// A malformed `encoded` is false.
bool VerifySecret(absl::string_view encoded, absl::string_view secret);

// Spends the time of one VerifySecret for a hash made with `params`, so that "no such
// credential" takes as long as "wrong secret". The dummy hash is computed once per parameters.
void BurnVerificationTime(const SecretHashParams& params = {});

}  // namespace verdict

#endif  // VERDICT_CRYPTO_SECRET_HASH_H_
