// How the engine authenticates a subject that is a JWT access token (design section 2). An
// interface, so the engine stays pure: the keys, the JWT policy and the DPoP replay cache live in
// the implementation (runtime/access_token_verifier.h) and are handed in, never read from files.
//
//   absl::StatusOr<AccessTokenClaims> claims = access_tokens.Authenticate(subject, view, now);
//   if (JwtErrorOf(claims.status()).has_value()) ...  // refused: TOKEN_INVALID
//   else if (!claims.ok()) ...                         // a fault: the call fails closed
#ifndef VERDICT_DECISION_ACCESS_TOKEN_AUTHENTICATOR_H_
#define VERDICT_DECISION_ACCESS_TOKEN_AUTHENTICATOR_H_

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "crypto/jwt.h"
#include "decision/policy_view.h"
#include "decision/types.h"

namespace verdict {

class AccessTokenAuthenticator {
 public:
  virtual ~AccessTokenAuthenticator() = default;

  // The claims of subject.token when it is a genuine access token presented by its holder: signed
  // by a known key (keys kept in the store are read through `view`), its claims valid at `now`,
  // and, when it is bound to a key ("cnf.jkt"), subject.dpop a valid proof not used before.
  // A refused token is a status JwtErrorOf reads (crypto/jwt_compact.h); any other status is a
  // fault. Whether the token id is revoked and the agent live is the engine's to check.
  virtual absl::StatusOr<AccessTokenClaims> Authenticate(const Subject& subject, PolicyView& view,
                                                         absl::Time now) = 0;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_ACCESS_TOKEN_AUTHENTICATOR_H_
