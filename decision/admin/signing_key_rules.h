// The rules of JWT signing keys and revoked token ids (design section 2): a retired key's kid is
// never used again; a kid of verdictd's own --jwks_file is not the store's to change; a revoked
// token id carries its token's expiry, not long past; and what a JWK itself must be
// (PrepareSigningKey).
//
//   if (absl::Status s = CheckKidNotFromFile(kid, file_key_ids); !s.ok()) return s;
#ifndef VERDICT_DECISION_ADMIN_SIGNING_KEY_RULES_H_
#define VERDICT_DECISION_ADMIN_SIGNING_KEY_RULES_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/admin_types.h"
#include "decision/types.h"

namespace verdict {

// A revoked token id is kept this long past its token's expiry, beyond any clock leeway, and may
// then be dropped: the token is refused as expired anyway.
inline constexpr absl::Duration kRevokedTokenIdRetention = absl::Hours(24);
// How far in the past a revoked token id's expiry may lie: a token that expired up to the longest
// leeway verdictd accepts (--jwt_leeway, at most 1h: server/flags.cc) ago may still pass.
inline constexpr absl::Duration kPastExpiryAccepted = absl::Hours(1);

// The active key a NewSigningKey describes, created or rotated at `now`: its kid is the JWK's
// "kid" (1 to 128 bytes of [A-Za-z0-9_.:-]); its JWK, kept in canonical JSON, must be one verdict
// can verify with every algorithm allowed (at least one of EdDSA, ES256, HS256, listed once each,
// kept in that order); an Ed25519 or P-256 key must be public only, since a verifier never needs
// the private part. INVALID_ARGUMENT otherwise.
absl::StatusOr<SigningKey> PrepareSigningKey(const NewSigningKey& key, absl::Time now);

// FAILED_PRECONDITION for a retired key: its kid is never used again.
absl::Status CheckSigningKeyRotatable(const SigningKey& key);

// FAILED_PRECONDITION when `kid` is one of `file_key_ids`, the kids of verdictd's --jwks_file,
// which verify tokens whatever the store holds under the same kid.
absl::Status CheckKidNotFromFile(absl::string_view kid,
                                 const absl::flat_hash_set<std::string>& file_key_ids);

// INVALID_ARGUMENT unless `expires_at` (the token's "exp") is given and at most
// kPastExpiryAccepted before `now`: an entry is kept until a day past it and then dropped, so an
// expiry given wrong, long past, would have the revocation reported done and then forgotten while
// the token is still accepted.
absl::Status CheckRevokedTokenExpiry(absl::Time expires_at, absl::Time now);

}  // namespace verdict

#endif  // VERDICT_DECISION_ADMIN_SIGNING_KEY_RULES_H_
