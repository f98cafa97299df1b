// Where admin sessions live (server/admin_sessions.h says what they are): a principal's
// short-lived session, stored under the SHA-256 of its token, never the token itself. A session
// ends at its expiry, or when it is deleted (revoked); nothing else changes it.
//
// Implementation: AdminSessions (store/admin_sessions.h), on either database;
// OpenAdminSessionStore (store/open_store.h) opens it from --db.
//
//   absl::StatusOr<int64_t> removed = sessions.Insert(session, Sha256(token), 100);
//   absl::StatusOr<std::optional<AdminSession>> found = sessions.FindByTokenHash(Sha256(token));
#ifndef VERDICT_STORE_ADMIN_SESSION_STORE_H_
#define VERDICT_STORE_ADMIN_SESSION_STORE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace verdict {

struct AdminSession {
  std::string id;         // "ses_" and random hex: names the session, never authenticates
  std::string principal;  // who it acts for
  absl::Time created_at;
  absl::Time expires_at;  // finite
};

class AdminSessionStore {
 public:
  virtual ~AdminSessionStore() = default;

  // Stores `session` under `token_hash`, in one write transaction that first makes room: the
  // principal's sessions expired at session.created_at are deleted, and so are its oldest live
  // ones beyond the newest max_per_principal - 1, so that it holds at most max_per_principal
  // sessions with this one. Returns how many sessions were deleted to make room.
  // ALREADY_EXISTS when the id or the token hash is taken (never, for random ones).
  virtual absl::StatusOr<int64_t> Insert(const AdminSession& session, absl::string_view token_hash,
                                         int max_per_principal) = 0;

  // The session stored under `token_hash`, expired or not; nullopt when there is none.
  virtual absl::StatusOr<std::optional<AdminSession>> FindByTokenHash(
      absl::string_view token_hash) = 0;

  // Deletes the session `id` when it is `principal`'s ("" for anyone's). True when one was.
  virtual absl::StatusOr<bool> Delete(absl::string_view id, absl::string_view principal) = 0;

  // Deletes every session of `principal`; how many there were.
  virtual absl::StatusOr<int64_t> DeleteAllOf(absl::string_view principal) = 0;

  // Deletes up to `max_rows` sessions expired at `now`, for the pruning job; how many.
  virtual absl::StatusOr<int64_t> PruneExpired(absl::Time now, int64_t max_rows) = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_SESSION_STORE_H_
