#include "store/admin_credentials.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace verdict {
namespace {

// VERDICT_ADMIN_PRINCIPAL_COLUMNS (store/statements.cc), in its order.
absl::StatusOr<StoredAdminPrincipal> ReadPrincipal(const ResultRow& row) {
  StoredAdminPrincipal stored;
  stored.principal.name = row.Text(0);
  stored.secret_hash = row.Text(1);
  absl::StatusOr<AdminRoleSet> roles = ParseJoinedAdminRoles(row.Text(2));
  if (!roles.ok()) {
    return absl::InternalError(absl::StrCat("admin principal \"", stored.principal.name,
                                            "\" has unreadable roles: ", roles.status().message()));
  }
  stored.principal.roles = *roles;
  stored.principal.grant_patterns = absl::StrSplit(row.Text(3), '\n', absl::SkipEmpty());
  stored.principal.enabled = row.Bool(4);
  stored.created_at = row.Time(5);
  stored.updated_at = row.Time(6);
  return stored;
}

std::string JoinedPatterns(const std::vector<std::string>& patterns) {
  return absl::StrJoin(patterns, "\n");
}

}  // namespace

AdminCredentials::AdminCredentials(std::string path, ConnectionOptions options)
    : AdminCredentials(std::make_unique<ConnectionPool>(SqliteSource(std::move(path), options),
                                                        PoolOptions{.size = 1})) {}

absl::StatusOr<std::optional<StoredAdminPrincipal>> AdminCredentials::FindPrincipal(
    absl::string_view name) {
  absl::StatusOr<std::optional<StoredAdminPrincipal>> found;
  absl::Status status = database_->InTransaction(TransactionKind::kRead, [&](Connection& c) {
    found = ReadFirst<StoredAdminPrincipal>(
        c.Execute(Statement::kFindAdminPrincipal, Params().Text(name)), ReadPrincipal);
    return found.status();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<std::vector<StoredAdminPrincipal>> AdminCredentials::ListPrincipals() {
  absl::StatusOr<std::vector<StoredAdminPrincipal>> all;
  absl::Status status = database_->InTransaction(TransactionKind::kRead, [&](Connection& c) {
    all = ReadAll<StoredAdminPrincipal>(
        c.Execute(Statement::kListAdminPrincipals, Params().Int64(kMaxAdminPrincipals)),
        ReadPrincipal);
    return all.status();
  });
  if (!status.ok()) return status;
  return all;
}

absl::StatusOr<bool> AdminCredentials::SetIfAbsent(absl::string_view secret_hash, absl::Time now) {
  bool stored = false;
  absl::Status status =
      database_->InTransaction(TransactionKind::kLockFreeWrite, [&](Connection& c) {
        absl::StatusOr<ResultRows> rows =
            c.Execute(Statement::kSetAdminSecretHashIfAbsent,
                      Params().Text(secret_hash).Int64(absl::ToUnixMicros(now)));
        if (rows.ok()) stored = rows->changed_rows() == 1;
        return rows.status();
      });
  if (!status.ok()) return status;
  return stored;
}

absl::Status CreatePrincipalOn(Connection& c, const StoredAdminPrincipal& stored) {
  const AdminPrincipal& principal = stored.principal;
  absl::StatusOr<ResultRows> count = c.Execute(Statement::kCountAdminPrincipals);
  if (!count.ok()) return count.status();
  if (count->size() == 1 && count->row(0).Int64(0) >= kMaxAdminPrincipals) {
    return absl::ResourceExhaustedError(
        absl::StrCat("at most ", kMaxAdminPrincipals, " admin principals may be stored"));
  }
  absl::StatusOr<ResultRows> inserted = c.Execute(
      Statement::kInsertAdminPrincipal, Params()
                                            .Text(principal.name)
                                            .Text(stored.secret_hash)
                                            .Text(principal.roles.Joined())
                                            .Text(JoinedPatterns(principal.grant_patterns))
                                            .Int64(principal.enabled ? 1 : 0)
                                            .Int64(absl::ToUnixMicros(stored.created_at))
                                            .Int64(absl::ToUnixMicros(stored.updated_at)));
  if (!inserted.ok()) return inserted.status();
  if (inserted->changed_rows() != 1) {
    return absl::AlreadyExistsError(
        absl::StrCat("admin principal \"", principal.name, "\" exists already"));
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredAdminPrincipal> ChangePrincipalOn(
    Connection& c, absl::string_view name,
    const std::function<absl::Status(StoredAdminPrincipal&)>& change, absl::Time now) {
  absl::StatusOr<std::optional<StoredAdminPrincipal>> before = ReadFirst<StoredAdminPrincipal>(
      c.Execute(Statement::kFindAdminPrincipal, Params().Text(name)), ReadPrincipal);
  if (!before.ok()) return before.status();
  if (!before->has_value()) {
    return absl::NotFoundError(absl::StrCat("no admin principal \"", name, "\""));
  }
  StoredAdminPrincipal after = **before;
  if (absl::Status changed = change(after); !changed.ok()) return changed;
  after.principal.name = (*before)->principal.name;
  after.updated_at = now;
  absl::StatusOr<ResultRows> admins = c.Execute(Statement::kCountEnabledAdmins);
  if (!admins.ok()) return admins.status();
  const int enabled_admins = admins->size() == 1 ? static_cast<int>(admins->row(0).Int64(0)) : 0;
  if (absl::Status kept = CheckKeepsAnAdmin((*before)->principal, after.principal, enabled_admins);
      !kept.ok()) {
    return kept;
  }
  absl::StatusOr<ResultRows> updated = c.Execute(
      Statement::kUpdateAdminPrincipal, Params()
                                            .Text(after.principal.name)
                                            .Text(after.secret_hash)
                                            .Text(after.principal.roles.Joined())
                                            .Text(JoinedPatterns(after.principal.grant_patterns))
                                            .Int64(after.principal.enabled ? 1 : 0)
                                            .Int64(absl::ToUnixMicros(now)));
  if (!updated.ok()) return updated.status();
  return after;
}

absl::Status AdminCredentials::CreatePrincipal(const StoredAdminPrincipal& stored) {
  return database_->InTransaction(TransactionKind::kWrite,
                                  [&](Connection& c) { return CreatePrincipalOn(c, stored); });
}

absl::StatusOr<StoredAdminPrincipal> AdminCredentials::ChangePrincipal(
    absl::string_view name, const std::function<absl::Status(StoredAdminPrincipal&)>& change,
    absl::Time now) {
  StoredAdminPrincipal after;
  absl::Status status = database_->InTransaction(TransactionKind::kWrite, [&](Connection& c) {
    absl::StatusOr<StoredAdminPrincipal> changed = ChangePrincipalOn(c, name, change, now);
    if (!changed.ok()) return changed.status();
    after = *std::move(changed);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return after;
}

}  // namespace verdict
