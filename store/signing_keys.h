// JWT signing keys and revoked token ids as every store keeps them (app/policy_admin.h): their
// column encodings, the same in both databases. The checks a new key must pass are
// decision/admin/signing_key_rules.h's (PrepareSigningKey).
//
//   params.Text(JoinAlgorithms(row->allowed_algorithms));
#ifndef VERDICT_STORE_SIGNING_KEYS_H_
#define VERDICT_STORE_SIGNING_KEYS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/signing_key_rules.h"
#include "decision/types.h"
#include "store/admin_types.h"
#include "store/row_readers.h"

namespace verdict {

// "EdDSA,HS256" and back.
std::string JoinAlgorithms(const std::vector<std::string>& algorithms);
std::vector<std::string> SplitAlgorithms(absl::string_view joined);

// "active", "retired".
absl::string_view SigningKeyStatusName(SigningKeyStatus status);
absl::StatusOr<SigningKeyStatus> ParseSigningKeyStatus(absl::string_view name);

// A signing key from a row whose columns are, in order: kid, jwk_json, allowed_algs, status,
// created_at, updated_at, retired_at (as for store/row_readers.h).
template <typename Row>
absl::StatusOr<SigningKey> ReadSigningKeyColumns(const Row& row) {
  SigningKey key;
  key.kid = row.Text(0);
  key.jwk_json = row.Text(1);
  key.allowed_algorithms = SplitAlgorithms(row.Text(2));
  absl::StatusOr<SigningKeyStatus> status = ParseSigningKeyStatus(row.Text(3));
  if (!status.ok()) return CorruptRow("signing_keys", key.kid, status.status());
  key.status = *status;
  key.created_at = row.Time(4);
  key.updated_at = row.Time(5);
  key.retired_at = row.Time(6);
  return key;
}

}  // namespace verdict

#endif  // VERDICT_STORE_SIGNING_KEYS_H_
