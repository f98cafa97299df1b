// JWT access tokens as verdictd's flags configure them (server/flags.h): the JWK Set file, read
// once at start, and the JWT policy, made into the verifier the Authorizer is handed
// (runtime/access_token_verifier.h). Keys added through the admin plane are read from the store
// on every call, not here.
//
//   absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
//       AccessTokenVerifierFromOptions(options);
//   if (!verifier.ok()) ...  // a bad --jwks_file: refuse to start
//   Authorizer authorizer(store, clock, observer, verifier->get());  // null: JWTs refused
#ifndef VERDICT_SERVER_ACCESS_TOKENS_H_
#define VERDICT_SERVER_ACCESS_TOKENS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/access_token_verifier.h"
#include "server/flags.h"

namespace verdict {

// What --jwks_file held: the kids verdict verifies tokens with (the admin plane may not add,
// rotate or retire these: the file's key would go on verifying whatever the store held), and the
// keys it skipped (another key type, "use": "enc"), each with why.
struct JwksFileKeys {
  std::vector<std::string> kids;
  std::vector<std::string> skipped;
};

// Null when no --jwt_issuer is set (JWT access tokens are then refused). INVALID_ARGUMENT or
// NOT_FOUND naming --jwks_file when the file cannot be read, is not a JWK Set whose keys each
// carry a "kid" and an "alg", or holds no key verdict can use. `file_keys`, when given, receives
// what the file held.
absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> AccessTokenVerifierFromOptions(
    const ServerOptions& options, JwksFileKeys* file_keys = nullptr);

}  // namespace verdict

#endif  // VERDICT_SERVER_ACCESS_TOKENS_H_
