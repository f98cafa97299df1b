// The rules of JWT signing keys and revoked token ids (design section 2): a retired key's kid is
// never used again; a kid of verdictd's own --jwks_file is not the store's to change; a revoked
// token id carries its token's expiry, not long past. (What a JWK itself must be is checked where
// it is parsed: store/signing_keys.h, PrepareSigningKey.)
//
//   if (absl::Status s = CheckKidNotFromFile(kid, file_key_ids); !s.ok()) return s;
#ifndef VERDICT_DECISION_ADMIN_SIGNING_KEY_RULES_H_
#define VERDICT_DECISION_ADMIN_SIGNING_KEY_RULES_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict {

// A revoked token id is kept this long past its token's expiry, beyond any clock leeway, and may
// then be dropped: the token is refused as expired anyway.
inline constexpr absl::Duration kRevokedTokenIdRetention = absl::Hours(24);
// How far in the past a revoked token id's expiry may lie: a token that expired up to the longest
// leeway verdictd accepts (--jwt_leeway, at most 1h: server/flags.cc) ago may still pass.
inline constexpr absl::Duration kPastExpiryAccepted = absl::Hours(1);

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
