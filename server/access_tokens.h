// JWT access tokens as verdictd's flags configure them (server/flags.h): the JWK Set file, read
// once at start, and the JWT policy, made into the verifier the Authorizer is handed
// (decision/access_token_verifier.h). Keys added through the admin plane are read from the store
// on every call, not here.
//
//   absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
//       AccessTokenVerifierFromOptions(options);
//   if (!verifier.ok()) ...  // a bad --jwks_file: refuse to start
//   Authorizer authorizer(store, clock, observer, verifier->get());  // null: JWTs refused
#ifndef VERDICT_SERVER_ACCESS_TOKENS_H_
#define VERDICT_SERVER_ACCESS_TOKENS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "decision/access_token_verifier.h"
#include "server/flags.h"

namespace verdict {

// Null when no --jwt_issuer is set (JWT access tokens are then refused). INVALID_ARGUMENT or
// NOT_FOUND naming --jwks_file when the file cannot be read or is not a JWK Set whose keys each
// carry a "kid" and an "alg".
absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> AccessTokenVerifierFromOptions(
    const ServerOptions& options);

}  // namespace verdict

#endif  // VERDICT_SERVER_ACCESS_TOKENS_H_
