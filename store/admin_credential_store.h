// Where the admin principals live (design section 9): each has a name, the Argon2id hash
// (crypto/secret_hash.h) of its own bearer secret, roles (decision/admin/roles.h), the resource
// patterns an issuer may grant within, and whether it is enabled. The first, "admin" with the
// role admin, is set when verdictd first starts with --admin_secret_file. Every call reads its
// principal fresh, so a change made through one sidecar holds for every sidecar on the same
// database from the next call on.
//
// Implementation: AdminCredentials (store/admin_credentials.h), on either database;
// OpenAdminCredentialStore (store/open_store.h) opens it from --db.
//
//   absl::StatusOr<bool> stored = credentials.SetIfAbsent(*HashSecret(secret), absl::Now());
//   absl::StatusOr<std::optional<StoredAdminPrincipal>> p = credentials.FindPrincipal("admin");
#ifndef VERDICT_STORE_ADMIN_CREDENTIAL_STORE_H_
#define VERDICT_STORE_ADMIN_CREDENTIAL_STORE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/admin/roles.h"

namespace verdict {

// The principal --admin_secret_file sets, and the one a call that names none authenticates as.
inline constexpr char kBootstrapPrincipal[] = "admin";

// At most this many principals are stored (CreatePrincipal answers RESOURCE_EXHAUSTED past it),
// so listing them all is bounded.
inline constexpr int kMaxAdminPrincipals = 1000;

struct StoredAdminPrincipal {
  AdminPrincipal principal;
  std::string secret_hash;  // PHC encoded; never leaves the server
  absl::Time created_at;
  absl::Time updated_at;
};

class AdminCredentialStore {
 public:
  virtual ~AdminCredentialStore() = default;

  // The principal named `name`, or nullopt. UNAVAILABLE when the database cannot be used.
  virtual absl::StatusOr<std::optional<StoredAdminPrincipal>> FindPrincipal(
      absl::string_view name) = 0;

  // Every principal, by name.
  virtual absl::StatusOr<std::vector<StoredAdminPrincipal>> ListPrincipals() = 0;

  // Stores `secret_hash` as the principal "admin" (role admin, enabled) when there is no such
  // principal. True when it was stored; false when one existed already, which is then left as
  // it is.
  virtual absl::StatusOr<bool> SetIfAbsent(absl::string_view secret_hash, absl::Time now) = 0;

  // Stores a new principal. ALREADY_EXISTS when the name is taken; RESOURCE_EXHAUSTED when
  // kMaxAdminPrincipals are stored. The input is validated by the caller
  // (decision/admin/roles.h).
  virtual absl::Status CreatePrincipal(const StoredAdminPrincipal& principal) = 0;

  // Changes the principal `name` in one write transaction: `change` gets it as stored (with its
  // hash) and answers it as it is to be; the result is written unless it would leave no enabled
  // admin (CheckKeepsAnAdmin's FAILED_PRECONDITION). NOT_FOUND when there is no such principal.
  // Answers the principal as written.
  virtual absl::StatusOr<StoredAdminPrincipal> ChangePrincipal(
      absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change,
      absl::Time now) = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_CREDENTIAL_STORE_H_
