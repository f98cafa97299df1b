#include "decision/admin/roles.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

AdminPrincipal Principal(std::string name, AdminRoleSet roles,
                         std::vector<std::string> patterns = {}) {
  return {.name = std::move(name), .roles = roles, .grant_patterns = std::move(patterns)};
}

TEST(RolesTest, RoleNamesParseBackAndTheStoredFormIsCanonical) {
  absl::StatusOr<AdminRoleSet> roles = ParseAdminRoles({"auditor", "operator", "auditor"});
  ASSERT_TRUE(roles.ok()) << roles.status();
  EXPECT_EQ(roles->Joined(), "operator,auditor");
  EXPECT_EQ(*ParseJoinedAdminRoles("operator,auditor"), *roles);
  EXPECT_TRUE(ParseJoinedAdminRoles("")->empty());

  absl::StatusOr<AdminRoleSet> unknown = ParseAdminRoles({"root"});
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("root"));
}

TEST(RolesTest, AdminMayMakeEveryCallIncludingOnesNobodyDecidedYet) {
  const AdminPrincipal admin = Principal("root", {AdminRole::kAdmin});
  for (const char* call : {"CreateAgent", "CreatePrincipal", "ApproveRequest", "QueryAdminAudit",
                           "SomeCallAddedLater"}) {
    EXPECT_TRUE(CheckMayCall(call, admin).ok()) << call;
  }
  // A call the table does not know is admin's alone.
  EXPECT_EQ(CheckMayCall("SomeCallAddedLater", Principal("op", {AdminRole::kOperator})).code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(RolesTest, OperatorManagesAgentsPermissionsDelegationsAndKeysButNotPrincipalsOrVotes) {
  const AdminPrincipal op = Principal("op", {AdminRole::kOperator});
  for (const char* call :
       {"CreateAgent", "SuspendAgent", "RevokeAgent", "RotateToken", "GrantPermission",
        "RevokePermission", "CreateDelegation", "RevokeDelegation", "RevokeTokenId",
        "AddSigningKey", "RetireSigningKey", "ImportPolicy", "ListAgents", "ExportPolicy"}) {
    EXPECT_TRUE(CheckMayCall(call, op).ok()) << call;
  }
  for (const char* call : {"CreatePrincipal", "SetPrincipalRoles", "ApproveRequest", "DenyRequest",
                           "QueryAdminAudit"}) {
    EXPECT_EQ(CheckMayCall(call, op).code(), absl::StatusCode::kPermissionDenied) << call;
  }
}

TEST(RolesTest, IssuerCreatesAgentsRotatesTokensAndGrantsButChangesNothingElse) {
  const AdminPrincipal issuer = Principal("app", {AdminRole::kIssuer}, {"docs:*"});
  for (const char* call : {"CreateAgent", "RotateToken", "GrantPermission", "GetAgent"}) {
    EXPECT_TRUE(CheckMayCall(call, issuer).ok()) << call;
  }
  for (const char* call : {"RevokeAgent", "RevokePermission", "CreateDelegation", "ListAgents",
                           "ApproveRequest", "ImportPolicy"}) {
    EXPECT_EQ(CheckMayCall(call, issuer).code(), absl::StatusCode::kPermissionDenied) << call;
  }
}

TEST(RolesTest, ApproverOnlyListsAndVotes) {
  const AdminPrincipal approver = Principal("carol", {AdminRole::kApprover});
  for (const char* call : {"ListApprovals", "ApproveRequest", "DenyRequest"}) {
    EXPECT_TRUE(CheckMayCall(call, approver).ok()) << call;
  }
  for (const char* call : {"CreateAgent", "GrantPermission", "ExportPolicy"}) {
    EXPECT_EQ(CheckMayCall(call, approver).code(), absl::StatusCode::kPermissionDenied) << call;
  }
}

TEST(RolesTest, AuditorOnlyReads) {
  const AdminPrincipal auditor = Principal("eve", {AdminRole::kAuditor});
  for (const char* call : {"GetAgent", "ListAgents", "ListApprovals", "ListSigningKeys",
                           "QueryDecisionLog", "VerifyDecisionLog", "ExportPolicy",
                           "ListPrincipals", "QueryAdminAudit", "VerifyAdminAudit"}) {
    EXPECT_TRUE(CheckMayCall(call, auditor).ok()) << call;
  }
  for (const char* call : {"CreateAgent", "RevokeAgent", "ApproveRequest", "ImportPolicy",
                           "RevokeTokenId", "CreatePrincipal"}) {
    EXPECT_EQ(CheckMayCall(call, auditor).code(), absl::StatusCode::kPermissionDenied) << call;
  }
}

TEST(RolesTest, AnyPrincipalManagesItsOwnSessionsWhateverItsRoles) {
  const AdminPrincipal nobody = Principal("nobody", {});
  EXPECT_TRUE(CheckMayCall("CreateSession", nobody).ok());
  EXPECT_TRUE(CheckMayCall("RevokeSession", nobody).ok());
  EXPECT_EQ(CheckMayCall("ListAgents", nobody).code(), absl::StatusCode::kPermissionDenied);
}

TEST(RolesTest, TheRefusalNamesTheRolesTheCallNeedsAndThoseThePrincipalHas) {
  absl::Status refused = CheckMayCall("CreateAgent", Principal("eve", {AdminRole::kAuditor}));
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(refused.message(),
            "CreateAgent needs the role operator, issuer or admin; principal \"eve\" has auditor");
  EXPECT_EQ(CheckMayCall("CreatePrincipal", Principal("op", {AdminRole::kOperator})).message(),
            "CreatePrincipal needs the role admin; principal \"op\" has operator");
}

TEST(RolesTest, ADisabledPrincipalMayMakeNoCallAtAll) {
  AdminPrincipal admin = Principal("root", {AdminRole::kAdmin});
  admin.enabled = false;
  for (const char* call : {"ListAgents", "CreateSession"}) {
    absl::Status refused = CheckMayCall(call, admin);
    EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied) << call;
    EXPECT_THAT(refused.message(), HasSubstr("disabled"));
  }
}

TEST(RolesTest, AnIssuerGrantsOnlyWithinItsPatterns) {
  const AdminPrincipal issuer = Principal("app", {AdminRole::kIssuer}, {"docs:*", "/api/v1/**"});
  EXPECT_TRUE(CheckGrantWithinPatterns(issuer, "docs:read:1").ok());
  EXPECT_TRUE(CheckGrantWithinPatterns(issuer, "docs:*").ok());
  EXPECT_TRUE(CheckGrantWithinPatterns(issuer, "/api/v1/users/**").ok());
  for (const char* outside : {"*", "billing:*", "/api/v2/x", "/api/**"}) {
    absl::Status refused = CheckGrantWithinPatterns(issuer, outside);
    EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied) << outside;
    EXPECT_THAT(refused.message(), HasSubstr("may grant only within docs:*, /api/v1/**"));
  }
  // Without patterns an issuer grants nothing; operators and admins are not bound by patterns.
  EXPECT_EQ(CheckGrantWithinPatterns(Principal("app2", {AdminRole::kIssuer}), "docs:1").code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(CheckGrantWithinPatterns(Principal("op", {AdminRole::kOperator}), "*").ok());
  EXPECT_TRUE(
      CheckGrantWithinPatterns(Principal("op", {AdminRole::kIssuer, AdminRole::kAdmin}), "*").ok());
}

TEST(RolesTest, PrincipalNamesAndGrantPatternsAreValidated) {
  EXPECT_TRUE(ValidatePrincipalName("ci-bot@example.org").ok());
  for (const char* bad : {"", "with space", "new\nline", "colon:name"}) {
    EXPECT_EQ(ValidatePrincipalName(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(ValidatePrincipalName(std::string(65, 'a')).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(ValidateGrantPatterns({"docs:*"}).ok());
  EXPECT_EQ(ValidateGrantPatterns({"docs::x"}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ValidateGrantPatterns(std::vector<std::string>(kMaxGrantPatterns + 1, "a")).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RolesTest, TheLastEnabledAdminCanBeNeitherDisabledNorDemoted) {
  const AdminPrincipal admin = Principal("root", {AdminRole::kAdmin});
  AdminPrincipal disabled = admin;
  disabled.enabled = false;
  const AdminPrincipal demoted = Principal("root", {AdminRole::kOperator});

  absl::Status refused = CheckKeepsAnAdmin(admin, disabled, /*enabled_admins=*/1);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("last enabled admin"));
  EXPECT_EQ(CheckKeepsAnAdmin(admin, demoted, 1).code(), absl::StatusCode::kFailedPrecondition);

  // With another enabled admin, or for a principal that is not an admin, anything goes.
  EXPECT_TRUE(CheckKeepsAnAdmin(admin, disabled, 2).ok());
  EXPECT_TRUE(CheckKeepsAnAdmin(admin, demoted, 2).ok());
  const AdminPrincipal op = Principal("op", {AdminRole::kOperator});
  AdminPrincipal op_disabled = op;
  op_disabled.enabled = false;
  EXPECT_TRUE(CheckKeepsAnAdmin(op, op_disabled, 1).ok());
  // An admin keeping its role while gaining others is no demotion.
  EXPECT_TRUE(
      CheckKeepsAnAdmin(admin, Principal("root", {AdminRole::kAdmin, AdminRole::kApprover}), 1)
          .ok());
}

TEST(RolesTest, AVoteCountsTheCallerAndSeparationKeepsOwnersFromApprovingTheirAgents) {
  EXPECT_TRUE(CheckVoter("carol", "", /*approve=*/true, /*separation=*/false, "alice").ok());
  EXPECT_TRUE(CheckVoter("carol", "carol", true, false, "alice").ok());
  absl::Status impersonating = CheckVoter("carol", "dave", true, false, "alice");
  EXPECT_EQ(impersonating.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(impersonating.message(), HasSubstr("not the caller"));

  absl::Status own = CheckVoter("alice", "", true, /*separation=*/true, "alice");
  EXPECT_EQ(own.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(own.message(), HasSubstr("--approval_separation"));
  // Without separation an owner may approve; with it, anyone else may, and an owner may deny.
  EXPECT_TRUE(CheckVoter("alice", "", true, false, "alice").ok());
  EXPECT_TRUE(CheckVoter("carol", "", true, true, "alice").ok());
  EXPECT_TRUE(CheckVoter("alice", "", /*approve=*/false, true, "alice").ok());
}

// An issuer creates agents and rotates their tokens: the tokens of the agents it created, not
// another principal's, nor those of agents made before creators were recorded ("").
TEST(RolesTest, AnIssuerRotatesOnlyTheTokensOfAgentsItCreated) {
  const AdminPrincipal issuer = Principal("ian", {AdminRole::kIssuer});
  EXPECT_TRUE(CheckMayRotateToken(issuer, "agt_own", "ian").ok());
  absl::Status others = CheckMayRotateToken(issuer, "agt_other", "olga");
  EXPECT_EQ(others.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(others.message(), HasSubstr("issuer \"ian\" rotates only the tokens of agents"));
  EXPECT_THAT(others.message(), HasSubstr("agt_other"));
  absl::Status unrecorded = CheckMayRotateToken(issuer, "agt_old", "");
  EXPECT_EQ(unrecorded.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(unrecorded.message(), HasSubstr("before agents recorded their creator"));

  // An operator or admin rotates any agent's token, its own, another's, or an unrecorded one.
  for (const AdminPrincipal& any :
       {Principal("op", {AdminRole::kOperator}), Principal("root", {AdminRole::kAdmin}),
        Principal("both", {AdminRole::kIssuer, AdminRole::kOperator})}) {
    for (const char* creator : {"ian", "olga", "", "op"}) {
      EXPECT_TRUE(CheckMayRotateToken(any, "agt_x", creator).ok()) << any.name << " " << creator;
    }
  }
  // No other role rotates, even an agent recorded as its own.
  for (AdminRole role : {AdminRole::kApprover, AdminRole::kAuditor}) {
    const AdminPrincipal other = Principal("ian", {role});
    EXPECT_EQ(CheckMayRotateToken(other, "agt_own", "ian").code(),
              absl::StatusCode::kPermissionDenied)
        << AdminRoleName(role);
  }
}

}  // namespace
}  // namespace verdict
