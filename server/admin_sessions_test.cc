// Admin sessions (server/admin_sessions.h) over a real SQLite file and a clock the test moves:
// the lifecycle of a session, from its creation to its end at its TTL or by revocation.
#include "server/admin_sessions.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "crypto/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/admin_sessions.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const AdminActor kAliceBySecret{
    .principal = "alice", .method = AdminAuthMethod::kSecret, .peer = "uid:1000"};
const AdminActor kAdminBySecret{
    .principal = "admin", .method = AdminAuthMethod::kSecret, .peer = "uid:0"};

class AdminSessionsTest : public ::testing::Test {
 protected:
  explicit AdminSessionsTest(AdminSessionOptions options = {})
      : store_(FreshDatabasePath("sessions")), sessions_(store_, clock_.AsFunction(), options) {}

  NewAdminSession Create(const AdminActor& creator, absl::Duration ttl = absl::ZeroDuration()) {
    absl::StatusOr<NewAdminSession> made = sessions_.Create(creator, ttl);
    EXPECT_TRUE(made.ok()) << made.status();
    return made.ok() ? *made : NewAdminSession{};
  }

  absl::StatusOr<AdminActor> Use(const NewAdminSession& made, absl::string_view peer = "uid:1000") {
    return sessions_.Authenticate(peer, made.token);
  }

  ManualClock clock_;
  AdminSessions store_;
  AdminSessionManager sessions_;
};

TEST_F(AdminSessionsTest, ASessionActsForItsCreatorsPrincipalAndIsStoredOnlyAsItsHash) {
  const NewAdminSession made = Create(kAliceBySecret);

  EXPECT_THAT(made.token, MatchesRegex("vas_[A-Za-z0-9_-]{43}"));
  EXPECT_THAT(made.session.id, MatchesRegex("ses_[0-9a-f]{16}"));
  EXPECT_EQ(made.session.principal, "alice");
  absl::StatusOr<std::optional<AdminSession>> stored = store_.FindByTokenHash(Sha256(made.token));
  ASSERT_TRUE(stored.ok()) << stored.status();
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->id, made.session.id);
  EXPECT_FALSE(store_.FindByTokenHash(made.token)->has_value()) << "never the token itself";

  absl::StatusOr<AdminActor> caller = Use(made, "ipv4:10.0.0.7:5555");
  ASSERT_TRUE(caller.ok()) << caller.status();
  EXPECT_EQ(caller->principal, "alice");
  EXPECT_EQ(caller->method, AdminAuthMethod::kSession);
  EXPECT_EQ(caller->peer, "ipv4:10.0.0.7:5555");
}

TEST_F(AdminSessionsTest, ASessionEndsAtItsTtl) {
  const NewAdminSession made = Create(kAliceBySecret, absl::Minutes(10));
  EXPECT_EQ(made.session.expires_at, clock_.Now() + absl::Minutes(10));

  clock_.Advance(absl::Minutes(10) - absl::Microseconds(1));
  EXPECT_TRUE(Use(made).ok());
  clock_.Advance(absl::Microseconds(1));
  EXPECT_EQ(Use(made).status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(AdminSessionsTest, WithoutATtlASessionLastsTheDefaultAndNoneOutlastsTheMaximum) {
  EXPECT_EQ(Create(kAliceBySecret).session.expires_at, clock_.Now() + absl::Hours(1));
  EXPECT_EQ(Create(kAliceBySecret, absl::Hours(12)).session.expires_at,
            clock_.Now() + absl::Hours(12));

  absl::StatusOr<NewAdminSession> too_long =
      sessions_.Create(kAliceBySecret, absl::Hours(12) + absl::Seconds(1));
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.status().message(), HasSubstr("12h"));
  EXPECT_EQ(sessions_.Create(kAliceBySecret, -absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(AdminSessionsTest, ASessionCannotCreateAnotherSession) {
  absl::StatusOr<AdminActor> by_session = Use(Create(kAliceBySecret));
  ASSERT_TRUE(by_session.ok()) << by_session.status();

  absl::StatusOr<NewAdminSession> again = sessions_.Create(*by_session, absl::ZeroDuration());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(again.status().message(), HasSubstr("secret"));

  const AdminActor by_uid{.principal = "alice", .method = AdminAuthMethod::kPeerUid};
  EXPECT_TRUE(sessions_.Create(by_uid, absl::ZeroDuration()).ok()) << "a mapped uid may";
}

TEST_F(AdminSessionsTest, UnknownExpiredRevokedAndMalformedTokensAreRefusedInTheSameWords) {
  const NewAdminSession expired = Create(kAliceBySecret, absl::Seconds(1));
  const NewAdminSession revoked = Create(kAliceBySecret);
  ASSERT_EQ(sessions_.Revoke(kAliceBySecret, "", revoked.session.id, "").value_or(0), 1);
  clock_.Advance(absl::Seconds(1));

  NewAdminSession unknown = revoked;
  unknown.token = "vas_" + std::string(43, 'A');
  NewAdminSession malformed = revoked;
  malformed.token = "vas_short";
  const absl::Status first = Use(unknown).status();
  EXPECT_EQ(first.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(Use(expired, "uid:2001").status(), first);
  EXPECT_EQ(Use(revoked, "uid:2002").status(), first);
  EXPECT_EQ(Use(malformed, "uid:2003").status(), first);
  EXPECT_THAT(first.message(), Not(HasSubstr("vas_")));
}

TEST_F(AdminSessionsTest, RevokingTheSessionACallIsMadeWithEndsItForTheNextCall) {
  const NewAdminSession made = Create(kAliceBySecret);
  const NewAdminSession other = Create(kAliceBySecret);
  absl::StatusOr<AdminActor> caller = Use(made);
  ASSERT_TRUE(caller.ok());

  EXPECT_EQ(sessions_.Revoke(*caller, made.token, "", "").value_or(-1), 1);
  EXPECT_EQ(Use(made).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(Use(other).ok()) << "the principal's other sessions go on";

  EXPECT_EQ(sessions_.Revoke(kAliceBySecret, "", "", "").status().code(),
            absl::StatusCode::kInvalidArgument)
      << "a call made with a secret has no session of its own to end";
}

TEST_F(AdminSessionsTest, APrincipalRevokesItsOwnSessionsAndOnlyAdminRevokesAnyones) {
  const NewAdminSession alices = Create(kAliceBySecret);
  const NewAdminSession bobs = Create({.principal = "bob", .method = AdminAuthMethod::kSecret});

  EXPECT_EQ(sessions_.Revoke(kAliceBySecret, "", bobs.session.id, "").value_or(-1), 0);
  EXPECT_EQ(sessions_.Revoke(kAliceBySecret, "", "", "bob").status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Use(bobs).ok());

  EXPECT_EQ(sessions_.Revoke(kAdminBySecret, "", bobs.session.id, "").value_or(-1), 1);
  EXPECT_FALSE(Use(bobs).ok());
  EXPECT_EQ(sessions_.Revoke(kAdminBySecret, "", "", "alice").value_or(-1), 1);
  EXPECT_FALSE(Use(alices).ok());
}

TEST_F(AdminSessionsTest, RevokeRefusesMalformedInput) {
  EXPECT_EQ(sessions_.Revoke(kAdminBySecret, "", "ses_1", "alice").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sessions_.Revoke(kAdminBySecret, "", "agt_1", "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(sessions_.Revoke(kAdminBySecret, "", "", "has space").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(AdminSessionsTest, APeerThatKeepsPresentingBadTokensBacksOffAndOthersDoNot) {
  const NewAdminSession good = Create(kAliceBySecret);
  NewAdminSession bad = good;
  bad.token = "vas_" + std::string(43, 'B');
  for (int i = 0; i < 3; ++i) {  // the third failure in a row starts the back-off
    EXPECT_EQ(Use(bad, "uid:666").status().code(), absl::StatusCode::kUnauthenticated);
  }
  const absl::Status waiting = Use(good, "uid:666").status();
  EXPECT_EQ(waiting.code(), absl::StatusCode::kResourceExhausted) << waiting;
  EXPECT_TRUE(Use(good, "uid:1000").ok()) << "another peer is not held back";

  clock_.Advance(absl::Seconds(1));
  EXPECT_TRUE(Use(good, "uid:666").ok()) << "after the back-off; a success forgets the failures";
  EXPECT_EQ(Use(bad, "uid:666").status().code(), absl::StatusCode::kUnauthenticated);
}

class CappedSessionsTest : public AdminSessionsTest {
 protected:
  CappedSessionsTest() : AdminSessionsTest({.max_per_principal = 2}) {}
};

TEST_F(CappedSessionsTest, OneSessionOverThePrincipalsCapEvictsItsOldest) {
  const NewAdminSession first = Create(kAliceBySecret);
  clock_.Advance(absl::Seconds(1));
  const NewAdminSession second = Create(kAliceBySecret);
  clock_.Advance(absl::Seconds(1));
  const NewAdminSession third = Create(kAliceBySecret);

  EXPECT_EQ(Use(first).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_TRUE(Use(second).ok());
  EXPECT_TRUE(Use(third).ok());
}

}  // namespace
}  // namespace verdict
