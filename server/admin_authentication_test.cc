// Who an admin call is: a mapped uid first, then a session token, then the secret
// (server/admin_authentication.h); and --admin_peer_uids as an operator writes it.
#include "server/admin_authentication.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/admin_sessions.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(PeerUidPrincipalsTest, CommaSeparatedEntriesMapUidsToPrincipals) {
  absl::StatusOr<PeerUidPrincipals> map = ParsePeerUidPrincipals({"0=admin", " 1000=alice", ""});
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_THAT(*map, UnorderedElementsAre(Pair(0, "admin"), Pair(1000, "alice")));
}

TEST(PeerUidPrincipalsTest, AMalformedEntryIsRefusedNamingTheFlag) {
  for (const char* bad : {"admin", "x=admin", "-1=admin", "1000=", "1000=has space"}) {
    absl::StatusOr<PeerUidPrincipals> map = ParsePeerUidPrincipals({bad});
    EXPECT_EQ(map.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(map.status().message(), HasSubstr("--admin_peer_uids")) << bad;
  }
  EXPECT_EQ(ParsePeerUidPrincipals({"1000=alice", "1000=bob"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PeerUidPrincipalsTest, PeerUidsNeedAUnixAdminListener) {
  absl::SetFlag(&FLAGS_admin_peer_uids, {"1000=alice"});
  EXPECT_TRUE(AdminAuthenticationOptionsFromFlags(/*on_unix_socket=*/true).ok());
  absl::StatusOr<AdminAuthenticationOptions> on_tcp =
      AdminAuthenticationOptionsFromFlags(/*on_unix_socket=*/false);
  EXPECT_EQ(on_tcp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(on_tcp.status().message(), HasSubstr("never"));
  absl::SetFlag(&FLAGS_admin_peer_uids, {});
}

class AdminAuthenticationTest : public ::testing::Test {
 protected:
  AdminAuthenticationTest()
      : store_(FreshDatabasePath()),
        sessions_(store_, clock_.AsFunction()),
        authentication_(&sessions_, {{1000, "alice"}}) {}

  absl::StatusOr<AdminActor> Authenticate(absl::string_view caller,
                                          absl::string_view authorization) {
    return authentication_.Authenticate(caller, authorization, [&] {
      ++secret_checks_;
      return absl::StatusOr<AdminActor>(
          AdminActor{.principal = "admin", .method = AdminAuthMethod::kSecret});
    });
  }

  ManualClock clock_;
  AdminSessions store_;
  AdminSessionManager sessions_;
  AdminAuthentication authentication_;
  int secret_checks_ = 0;
};

TEST_F(AdminAuthenticationTest, AMappedUidIsItsPrincipalWhateverItSends) {
  absl::StatusOr<AdminActor> actor = Authenticate("uid:1000", "");
  ASSERT_TRUE(actor.ok()) << actor.status();
  EXPECT_EQ(actor->principal, "alice");
  EXPECT_EQ(actor->method, AdminAuthMethod::kPeerUid);
  EXPECT_EQ(actor->peer, "uid:1000");
  EXPECT_EQ(Authenticate("uid:1000", "Bearer some secret")->principal, "alice");
  EXPECT_EQ(secret_checks_, 0);
}

TEST_F(AdminAuthenticationTest, AnUnmappedUidOrAHostGoesToTheSecret) {
  EXPECT_EQ(Authenticate("uid:1001", "Bearer s")->method, AdminAuthMethod::kSecret);
  EXPECT_EQ(Authenticate("ipv4:127.0.0.1:1000", "Bearer s")->method, AdminAuthMethod::kSecret);
  EXPECT_EQ(Authenticate("gone:fd:7", "Bearer s")->method, AdminAuthMethod::kSecret);
  EXPECT_EQ(secret_checks_, 3);
}

TEST_F(AdminAuthenticationTest, ASessionTokenGoesToTheSessionsNeverToTheSecret) {
  absl::StatusOr<NewAdminSession> made =
      sessions_.Create({.principal = "bob", .method = AdminAuthMethod::kSecret}, absl::Hours(1));
  ASSERT_TRUE(made.ok()) << made.status();
  absl::StatusOr<AdminActor> actor = Authenticate("uid:1001", "bearer " + made->token);
  ASSERT_TRUE(actor.ok()) << actor.status();
  EXPECT_EQ(actor->principal, "bob");
  EXPECT_EQ(actor->method, AdminAuthMethod::kSession);
  EXPECT_EQ(Authenticate("uid:1001", "Bearer vas_forged").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(secret_checks_, 0);
}

}  // namespace
}  // namespace verdict
