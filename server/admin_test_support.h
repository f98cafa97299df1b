// What the AdminService tests share (admin_service_test, admin_session_service_test,
// admin_peer_uid_test): the admin secret they store and the cheap hash parameters they store it
// with, the principals they add, and a context carrying a credential.
//
//   ASSERT_TRUE(SetTestAdminSecret(credentials, clock.Now()).ok());
//   ASSERT_TRUE(AddTestPrincipal(credentials, "carol", {AdminRole::kApprover}, "carol's secret",
//                                clock.Now()).ok());
//   stub->ListAgents(AdminCallContext(kTestAdminSecret).get(), request, &response);
#ifndef VERDICT_SERVER_ADMIN_TEST_SUPPORT_H_
#define VERDICT_SERVER_ADMIN_TEST_SUPPORT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "crypto/secret_hash.h"
#include "decision/admin/roles.h"
#include "store/admin_credential_store.h"

namespace verdict {

inline constexpr char kTestAdminSecret[] = "an admin secret for tests only";
// Argon2id at its cheapest: the tests hash a secret on every call they make with one.
inline constexpr SecretHashParams kTestHashParams = {.time_cost = 1, .memory_kib = 1024};

// Stores kTestAdminSecret as the admin credential (the principal "admin"), set at `now`.
absl::Status SetTestAdminSecret(AdminCredentialStore& credentials, absl::Time now);

// Stores the enabled principal `name` with `roles` and `grant_patterns`, whose secret is
// `secret`, created at `now`.
absl::Status AddTestPrincipal(AdminCredentialStore& credentials, const std::string& name,
                              AdminRoleSet roles, absl::string_view secret, absl::Time now,
                              std::vector<std::string> grant_patterns = {});

// A context for one call: "authorization: Bearer <credential>" unless `credential` is "", and
// "verdict-principal: <principal>" unless `principal` is "" (which names the principal "admin").
std::unique_ptr<grpc::ClientContext> AdminCallContext(absl::string_view credential,
                                                      absl::string_view principal = "");

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_TEST_SUPPORT_H_
