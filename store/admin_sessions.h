// Admin sessions (store/admin_session_store.h says what they are) on either database.
//
//   AdminSessions sessions(db_path);   // SQLite; OpenAdminSessionStore for any
//   absl::StatusOr<int64_t> removed = sessions.Insert(session, Sha256(token), 100);
#ifndef VERDICT_STORE_ADMIN_SESSIONS_H_
#define VERDICT_STORE_ADMIN_SESSIONS_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/admin_session_store.h"
#include "store/connection.h"
#include "store/sqlite/sqlite_source.h"

namespace verdict {

class AdminSessions final : public AdminSessionStore {
 public:
  // The sessions in `database`, whose connections connect (and migrate) on first use.
  explicit AdminSessions(std::unique_ptr<Database> database) : database_(std::move(database)) {}
  // The sessions in the SQLite file at `path`, with a connection of its own.
  explicit AdminSessions(std::string path, ConnectionOptions options = {});

  absl::StatusOr<int64_t> Insert(const AdminSession& session, absl::string_view token_hash,
                                 int max_per_principal) override;
  absl::StatusOr<std::optional<AdminSession>> FindByTokenHash(
      absl::string_view token_hash) override;
  absl::StatusOr<bool> Delete(absl::string_view id, absl::string_view principal) override;
  absl::StatusOr<int64_t> DeleteAllOf(absl::string_view principal) override;
  absl::StatusOr<int64_t> PruneExpired(absl::Time now, int64_t max_rows) override;

 private:
  // Runs one statement in a transaction of `kind`; the rows it changed.
  absl::StatusOr<int64_t> Change(TransactionKind kind, Statement statement, const Params& params);

  const std::unique_ptr<Database> database_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_SESSIONS_H_
