// DPoP proofs (RFC 9449): a client proves, request by request, that it holds the private key an
// access token is bound to ("cnf": {"jkt": thumbprint}). A proof is a JWT with "typ" dpop+jwt,
// the public key in its "jwk" header, and claims naming the request (htm, htu), its time (iat),
// the access token's hash (ath) and a one-time id (jti).
//
//   DpopRequest request;
//   request.http_method = "POST";
//   request.http_uri = "https://verdict.example/v1/authorize";
//   request.access_token = token;
//   request.token_jkt = claims.cnf_jkt;
//   absl::StatusOr<DpopProof> proof =
//       VerifyDpopProof(dpop_header, request, now, absl::Seconds(60), replay_cache);
#ifndef VERDICT_CRYPTO_DPOP_H_
#define VERDICT_CRYPTO_DPOP_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "crypto/dpop_replay_cache.h"

namespace verdict {

// What the proof must match. The views must outlive the call.
struct DpopRequest {
  absl::string_view http_method;  // "htm", compared exactly ("GET", "POST"...).
  absl::string_view http_uri;     // "htu", compared as NormalizedHtu of both.
  // The access token sent with the proof: its hash must be "ath", and it must be bound to the
  // proof key (so token_jkt is then required). Empty when the proof comes without a token.
  absl::string_view access_token;
  // The token's cnf.jkt: the proof key's RFC 7638 thumbprint must equal it.
  absl::string_view token_jkt;
};

struct DpopProof {
  std::string jti;
  absl::Time issued_at;
  std::string jkt;  // The proof key's thumbprint.
};

// Verifies `proof` for `request`: typ dpop+jwt; EdDSA or ES256 by the public key in its "jwk"
// header (a private or symmetric key there is refused); htm and htu; iat within `iat_window`
// of `now` either way; ath and the key binding when an access token is given; and last, that
// the proof's jti (per key) was not used before: it is then recorded in `replay_cache` until
// iat + iat_window. Refusals are statuses JwtErrorOf reads (see jwt_compact.h).
absl::StatusOr<DpopProof> VerifyDpopProof(absl::string_view proof, const DpopRequest& request,
                                          absl::Time now, absl::Duration iat_window,
                                          DpopReplayCache& replay_cache);

// The form "htu" is compared in (RFC 9449 section 4.3, with RFC 3986 section 6.2.2 and 6.2.3
// normalization): query and fragment dropped, scheme and host lower-cased, a default port
// (80 for http, 443 for https) dropped, an empty path made "/".
std::string NormalizedHtu(absl::string_view uri);

}  // namespace verdict

#endif  // VERDICT_CRYPTO_DPOP_H_
