#include "server/admin_test_support.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace verdict {

absl::Status SetTestAdminSecret(AdminCredentialStore& credentials, absl::Time now) {
  absl::StatusOr<std::string> hash = HashSecret(kTestAdminSecret, kTestHashParams);
  if (!hash.ok()) return hash.status();
  return credentials.SetIfAbsent(*hash, now).status();
}

absl::Status AddTestPrincipal(AdminCredentialStore& credentials, const std::string& name,
                              AdminRoleSet roles, absl::string_view secret, absl::Time now,
                              std::vector<std::string> grant_patterns) {
  absl::StatusOr<std::string> hash = HashSecret(secret, kTestHashParams);
  if (!hash.ok()) return hash.status();
  StoredAdminPrincipal stored;
  stored.principal = {.name = name, .roles = roles, .grant_patterns = std::move(grant_patterns)};
  stored.secret_hash = *std::move(hash);
  stored.created_at = stored.updated_at = now;
  return credentials.CreatePrincipal(stored);
}

std::unique_ptr<grpc::ClientContext> AdminCallContext(absl::string_view credential,
                                                      absl::string_view principal) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!credential.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", credential));
  }
  if (!principal.empty()) context->AddMetadata("verdict-principal", std::string(principal));
  return context;
}

}  // namespace verdict
