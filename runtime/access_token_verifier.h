// The access-token authenticator verdictd runs: RFC 9068 JWT access tokens signed by a key from
// the JWKS file or an active signing key in the store, chosen by "kid", and RFC 9449 DPoP proofs
// for tokens bound to a key.
//
// Store keys are read fresh in the call's snapshot, so a key added, rotated in place or retired
// counts on the next call; the parsed key objects are reused while a key's content is unchanged
// (JwkCache, by content fingerprint). DPoP proof ids are remembered in this process only: replay
// protection is per sidecar.
//
//   AccessTokenOptions options;
//   options.policy.issuer = "https://issuer.example";
//   options.policy.audience = "verdict";
//   options.keys = *KeySet::FromJwks(jwks_json);
//   absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> verifier =
//       AccessTokenVerifier::Create(std::move(options));
//   Authorizer authorizer(store, clock, observer, verifier->get());
#ifndef VERDICT_RUNTIME_ACCESS_TOKEN_VERIFIER_H_
#define VERDICT_RUNTIME_ACCESS_TOKEN_VERIFIER_H_

#include <cstddef>
#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "crypto/dpop_replay_cache.h"
#include "crypto/jwk.h"
#include "crypto/jwt.h"
#include "decision/access_token_authenticator.h"

namespace verdict {

struct AccessTokenOptions {
  // Issuer, audience, leeway and the algorithms accepted at all (each key narrows them further).
  JwtPolicy policy;
  // The JWKS file's keys. A kid found here is never looked up in the store.
  KeySet keys;
  // How far a DPoP proof's "iat" may lie from now, either way.
  absl::Duration dpop_iat_window = absl::Seconds(60);
  // Live DPoP proof ids remembered at most; beyond it new proofs are refused, never forgotten.
  size_t dpop_replay_capacity = 65536;
};

class AccessTokenVerifier final : public AccessTokenAuthenticator {
 public:
  // INVALID_ARGUMENT when the options cannot verify anything: no issuer or audience, a negative
  // leeway, no algorithm, a DPoP window that is not positive, no replay capacity.
  static absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> Create(AccessTokenOptions options);

  // Thread-safe.
  absl::StatusOr<AccessTokenClaims> Authenticate(const Subject& subject, PolicyView& view,
                                                 absl::Time now) override;

 private:
  explicit AccessTokenVerifier(AccessTokenOptions options);

  // The JWKS file's key with this kid, else the store's active one; INTERNAL for a stored key
  // that does not parse (the store checked it when it was added).
  absl::StatusOr<std::optional<Jwk>> FindKey(absl::string_view kid, PolicyView& view);

  const AccessTokenOptions options_;
  JwkCache key_cache_;
  DpopReplayCache replay_cache_;
};

}  // namespace verdict

#endif  // VERDICT_RUNTIME_ACCESS_TOKEN_VERIFIER_H_
