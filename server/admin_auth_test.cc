#include "server/admin_auth.h"

#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/admin_credentials.h"
#include "store/test_support.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

constexpr char kSecret[] = "correct horse battery staple";
constexpr char kPeer[] = "ipv4:10.0.0.1:40000";

// Low enough to keep the suite fast, high enough that a check costs measurable time.
SecretHashParams TestHashParams() { return {.time_cost = 1, .memory_kib = 8 * 1024}; }

class AdminAuthTest : public testing::Test {
 protected:
  AdminAuthTest() : credentials_(FreshDatabasePath()) {}

  void StoreSecret() {
    absl::StatusOr<std::string> hash = HashSecret(kSecret, TestHashParams());
    ASSERT_TRUE(hash.ok()) << hash.status();
    ASSERT_TRUE(credentials_.SetIfAbsent(*hash, now_).ok());
  }

  AdminAuthenticator MakeAuthenticator(AdminAuthOptions options = {}) {
    options.hash_params = TestHashParams();
    return AdminAuthenticator(
        credentials_, [this] { return now_; }, options);
  }

  static std::string Bearer(absl::string_view secret) { return absl::StrCat("Bearer ", secret); }

  // Stores the principal `name` (role operator) whose secret is `secret`.
  void StorePrincipal(const std::string& name, absl::string_view secret) {
    absl::StatusOr<std::string> hash = HashSecret(secret, TestHashParams());
    ASSERT_TRUE(hash.ok()) << hash.status();
    StoredAdminPrincipal stored;
    stored.principal = {.name = name, .roles = {AdminRole::kOperator}};
    stored.secret_hash = *hash;
    stored.created_at = stored.updated_at = now_;
    ASSERT_TRUE(credentials_.CreatePrincipal(stored).ok());
  }

  void DisablePrincipal(const std::string& name) {
    ASSERT_TRUE(credentials_
                    .ChangePrincipal(
                        name,
                        [](StoredAdminPrincipal& p) {
                          p.principal.enabled = false;
                          return absl::OkStatus();
                        },
                        now_)
                    .ok());
  }

  AdminCredentials credentials_;
  absl::Time now_ = absl::FromUnixSeconds(1700000000);
};

TEST_F(AdminAuthTest, TheAdminSecretPassesAsThePrincipalAdmin) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator();
  absl::StatusOr<AdminActor> actor = auth.Authenticate(kPeer, Bearer(kSecret));
  ASSERT_TRUE(actor.ok()) << actor.status();
  EXPECT_EQ(actor->principal, "admin");
  EXPECT_EQ(actor->method, AdminAuthMethod::kSecret);
  EXPECT_EQ(actor->peer, kPeer);
  EXPECT_TRUE(auth.Authenticate(kPeer, absl::StrCat("bearer ", kSecret)).ok());
}

TEST_F(AdminAuthTest, AWrongSecretIsUnauthenticated) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator();
  absl::Status status = auth.Authenticate(kPeer, Bearer("correct horse battery stapl")).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(status.message(), "invalid admin credential");
}

TEST_F(AdminAuthTest, AMissingOrMalformedHeaderIsUnauthenticated) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator({.free_failures = 100});
  for (const std::string& header :
       {std::string(""), std::string("Bearer"), std::string("Bearer   "), std::string(kSecret),
        absl::StrCat("Basic ", kSecret)}) {
    absl::Status status = auth.Authenticate(kPeer, header).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated) << header;
    EXPECT_THAT(status.message(), HasSubstr("authorization: Bearer")) << header;
  }
}

TEST_F(AdminAuthTest, WithNoCredentialStoredEverySecretFailsTheSameWay) {
  AdminAuthenticator auth = MakeAuthenticator();
  absl::Status status = auth.Authenticate(kPeer, Bearer(kSecret)).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(status.message(), "invalid admin credential");
}

// The fastest of several checks of each of two callers, taken in turn so that a busy spell of
// the machine slows both alike: on a busy machine the minimum is the steadiest measure of work.
std::pair<absl::Duration, absl::Duration> FastestCheckTimes(
    const std::function<void(int)>& first, const std::function<void(int)>& second) {
  absl::Duration fastest_first = absl::InfiniteDuration();
  absl::Duration fastest_second = absl::InfiniteDuration();
  for (int i = 0; i < 7; ++i) {
    absl::Time start = absl::Now();
    first(i);
    fastest_first = std::min(fastest_first, absl::Now() - start);
    start = absl::Now();
    second(i);
    fastest_second = std::min(fastest_second, absl::Now() - start);
  }
  return {fastest_first, fastest_second};
}

TEST_F(AdminAuthTest, ACheckTakesAsLongWhetherOrNotACredentialExists) {
  AdminCredentials empty(FreshDatabasePath("empty"));
  AdminAuthenticator without = AdminAuthenticator(
      empty, [this] { return now_; }, {.check_burst = 100, .hash_params = TestHashParams()});
  StoreSecret();
  AdminAuthenticator with = MakeAuthenticator({.check_burst = 100});
  const auto [without_credential, with_credential] = FastestCheckTimes(
      [&](int i) {
        (void)without.Authenticate(absl::StrCat("ipv4:10.0.0.", i, ":1"), Bearer("x"));
      },
      [&](int i) { (void)with.Authenticate(absl::StrCat("ipv4:10.0.0.", i, ":1"), Bearer("x")); });
  // Both run one Argon2id check at the same parameters. A shortcut for "no credential" would
  // answer in microseconds against milliseconds, far outside these bounds, which leave room for
  // a noisy machine.
  EXPECT_GT(without_credential, with_credential / 4);
  EXPECT_LT(without_credential, with_credential * 4);
}

TEST_F(AdminAuthTest, RepeatedFailuresMakeThePeerWaitEvenWithTheRightSecret) {
  StoreSecret();
  AdminAuthenticator auth =
      MakeAuthenticator({.free_failures = 2, .first_backoff = absl::Seconds(10)});
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);

  absl::Status waiting = auth.Authenticate(kPeer, Bearer(kSecret)).status();
  EXPECT_EQ(waiting.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(waiting.message(), HasSubstr("retry in 10 s"));
  // Another port of the same host is the same peer.
  EXPECT_EQ(auth.Authenticate("ipv4:10.0.0.1:40001", Bearer(kSecret)).status().code(),
            absl::StatusCode::kResourceExhausted);
  // Another host is not held back.
  EXPECT_TRUE(auth.Authenticate("ipv4:10.0.0.2:40000", Bearer(kSecret)).ok());

  now_ += absl::Seconds(10);
  EXPECT_TRUE(auth.Authenticate(kPeer, Bearer(kSecret)).ok());
  // The success forgot the failures: the next failure does not wait.
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST_F(AdminAuthTest, TheWaitDoublesWithEachFailureUpToTheMaximum) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator(
      {.free_failures = 1, .first_backoff = absl::Seconds(1), .max_backoff = absl::Seconds(5)});
  for (int expected_wait : {1, 2, 4, 5, 5}) {
    EXPECT_EQ(auth.Authenticate(kPeer, Bearer("wrong")).status().code(),
              absl::StatusCode::kUnauthenticated);
    absl::Status waiting = auth.Authenticate(kPeer, Bearer("wrong")).status();
    EXPECT_THAT(waiting.message(), HasSubstr(absl::StrCat("retry in ", expected_wait, " s")));
    now_ += absl::Seconds(expected_wait);
  }
}

TEST_F(AdminAuthTest, AnUnreadableStoreIsUnavailableNotUnauthenticated) {
  AdminCredentials unreachable("/nonexistent-dir/verdict.db");
  AdminAuthenticator auth(unreachable, [this] { return now_; }, {.hash_params = TestHashParams()});
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer(kSecret)).status().code(),
            absl::StatusCode::kUnavailable);
}

// A caller on TCP may change its source address for each guess, so each looks like a new peer:
// the checks of all peers together are bounded, here to the burst of 4, however many addresses
// guess.
TEST_F(AdminAuthTest, GuessesFromEverChangingAddressesRunAtMostTheGlobalBudgetOfChecks) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator(
      {.checks_per_second = 1, .check_burst = 4, .max_check_wait = absl::ZeroDuration()});
  int checked = 0;
  int refused = 0;
  for (int i = 0; i < 200; ++i) {
    const absl::Status status =
        auth.Authenticate(absl::StrCat("ipv4:127.0.", i / 250, ".", i % 250 + 2, ":1"),
                          Bearer("wrong"))
            .status();
    if (status.code() == absl::StatusCode::kUnauthenticated) ++checked;
    if (status.code() == absl::StatusCode::kResourceExhausted) ++refused;
  }
  EXPECT_EQ(checked, 4);
  EXPECT_EQ(refused, 196);
  // The budget comes back with time.
  now_ += absl::Seconds(1);
  EXPECT_EQ(auth.Authenticate("ipv4:127.0.9.9:1", Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
}

// When a failing peer has spent the budget of checks, a peer whose secret passed before is still
// checked at once; a new peer waits for the next token, and the failing peer, which never waits,
// cannot take that token from under it.
TEST_F(AdminAuthTest, WhenChecksAreScarceAFailingPeerIsRefusedAndOthersAreCheckedFirst) {
  StoreSecret();
  absl::Mutex clock_mu;
  absl::Time now = now_;
  AdminAuthenticator auth(credentials_,
                          [&] {
                            absl::MutexLock lock(&clock_mu);
                            return now;
                          },
                          {.checks_per_second = 1,
                           .check_burst = 3,
                           .max_check_wait = absl::Seconds(60),
                           .hash_params = TestHashParams()});
  constexpr char kAdmin[] = "uid:0";
  constexpr char kOther[] = "uid:65534";
  ASSERT_TRUE(auth.Authenticate(kAdmin, Bearer(kSecret)).ok());
  EXPECT_EQ(auth.Authenticate(kOther, Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(auth.Authenticate(kOther, Bearer("wrong")).status().code(),
            absl::StatusCode::kUnauthenticated);
  // The admin, whose secret passed, needs no token: it is checked though none is left.
  EXPECT_TRUE(auth.Authenticate(kAdmin, Bearer(kSecret)).ok());

  // A peer new to the server waits for the next token.
  constexpr char kNewcomer[] = "uid:1000";
  absl::Status newcomer_status = absl::UnknownError("not answered");
  std::thread newcomer(
      [&] { newcomer_status = auth.Authenticate(kNewcomer, Bearer(kSecret)).status(); });
  while (auth.WaitingPeers() == 0) std::this_thread::yield();
  // The failing peer is within its free failures, but checks are scarce: refused, not queued.
  const absl::Status other = auth.Authenticate(kOther, Bearer("wrong")).status();
  EXPECT_EQ(other.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(other.message(), HasSubstr("too many admin credential checks"));
  {
    absl::MutexLock lock(&clock_mu);
    now += absl::Seconds(1);
  }
  newcomer.join();
  EXPECT_TRUE(newcomer_status.ok()) << newcomer_status;
}

// Issue 15.6 at the authenticator: a local user sending 1,000 wrong secrets, as fast as it is
// answered, while the admin (another uid) calls once a second, never gets the admin refused.
TEST_F(AdminAuthTest, AThousandWrongSecretsFromOneUserNeverRefuseAnother) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator({.max_check_wait = absl::ZeroDuration()});
  int others_checked = 0;
  for (int i = 0; i < 1000; ++i) {
    if (auth.Authenticate("uid:65534", Bearer("wrong")).status().code() ==
        absl::StatusCode::kUnauthenticated) {
      ++others_checked;
    }
    if (i % 100 == 99) {
      const absl::Status admin = auth.Authenticate("uid:0", Bearer(kSecret)).status();
      EXPECT_TRUE(admin.ok()) << "call " << i << ": " << admin;
      now_ += absl::Seconds(1);
    }
  }
  // Its free failures, then one a back-off period at most.
  EXPECT_LE(others_checked, 3 + 10);
}

// --- Principals ---------------------------------------------------------------------------------

constexpr char kCarolSecret[] = "carol's own secret, 16+ chars";

TEST_F(AdminAuthTest, EachPrincipalPassesWithItsOwnSecretOnly) {
  StoreSecret();
  StorePrincipal("carol", kCarolSecret);
  AdminAuthenticator auth = MakeAuthenticator({.free_failures = 100});
  absl::StatusOr<AdminActor> carol = auth.Authenticate(kPeer, Bearer(kCarolSecret), "carol");
  ASSERT_TRUE(carol.ok()) << carol.status();
  EXPECT_EQ(carol->principal, "carol");
  EXPECT_EQ(carol->method, AdminAuthMethod::kSecret);
  // Neither secret opens the other principal.
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer(kCarolSecret), "admin").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer(kSecret), "carol").status().code(),
            absl::StatusCode::kUnauthenticated);
  // Naming none is naming "admin".
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer(kSecret))->principal, "admin");
}

TEST_F(AdminAuthTest, AnUnknownPrincipalFailsInTheSameWordsAsAWrongSecret) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator({.free_failures = 100});
  for (absl::string_view principal : {"nobody", "not a valid name!", ""}) {
    absl::Status status = auth.Authenticate(kPeer, Bearer(kSecret), principal).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated) << principal;
    EXPECT_EQ(status.message(), "invalid admin credential") << principal;
  }
}

TEST_F(AdminAuthTest, AnUnknownPrincipalTakesAsLongAsAWrongSecret) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator({.free_failures = 100, .check_burst = 100});
  const auto [unknown, known] =
      FastestCheckTimes([&](int) { (void)auth.Authenticate(kPeer, Bearer("wrong"), "nobody"); },
                        [&](int) { (void)auth.Authenticate(kPeer, Bearer("wrong"), "admin"); });
  EXPECT_GT(unknown, known / 4);
  EXPECT_LT(unknown, known * 4);
}

// Guesses at one principal from one peer hold back that pair only: the same principal from
// another peer, and another principal from the same peer, are checked as usual.
TEST_F(AdminAuthTest, GuessesAtAPrincipalFromOnePeerLockOutNeitherItElsewhereNorOthersHere) {
  StoreSecret();
  StorePrincipal("carol", kCarolSecret);
  AdminAuthenticator auth =
      MakeAuthenticator({.free_failures = 2, .first_backoff = absl::Seconds(60)});
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(auth.Authenticate(kPeer, Bearer("guess"), "admin").status().code(),
              absl::StatusCode::kUnauthenticated);
  }
  absl::Status waiting = auth.Authenticate(kPeer, Bearer(kSecret), "admin").status();
  EXPECT_EQ(waiting.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(waiting.message(), HasSubstr("for this principal from this peer"));

  EXPECT_TRUE(auth.Authenticate(kPeer, Bearer(kCarolSecret), "carol").ok());
  EXPECT_TRUE(auth.Authenticate("ipv4:10.0.0.2:40000", Bearer(kSecret), "admin").ok());
  EXPECT_TRUE(auth.Authenticate("uid:1000", Bearer(kSecret), "admin").ok());
}

// A peer spreading its guesses over many principals is held back as a whole, after
// peer_free_failures; other peers are not.
TEST_F(AdminAuthTest, APeerGuessingAcrossPrincipalsIsHeldBackAsAWhole) {
  StoreSecret();
  AdminAuthenticator auth = MakeAuthenticator(
      {.free_failures = 3, .peer_free_failures = 5, .first_backoff = absl::Seconds(60)});
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(auth.Authenticate(kPeer, Bearer("guess"), absl::StrCat("user", i)).status().code(),
              absl::StatusCode::kUnauthenticated)
        << i;
  }
  absl::Status waiting = auth.Authenticate(kPeer, Bearer(kSecret), "admin").status();
  EXPECT_EQ(waiting.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(waiting.message(), HasSubstr("from this peer: retry in 60 s"));
  EXPECT_TRUE(auth.Authenticate("ipv4:10.0.0.2:40000", Bearer(kSecret), "admin").ok());
  now_ += absl::Seconds(60);
  EXPECT_TRUE(auth.Authenticate(kPeer, Bearer(kSecret), "admin").ok());
}

// A principal whose secret passed goes ahead of others when checks are scarce; a disabled one,
// whose calls are all refused, does not: it cannot spend checks others wait for.
TEST_F(AdminAuthTest, ADisabledPrincipalsRightSecretEarnsNoPlaceAheadOfOthers) {
  StoreSecret();
  StorePrincipal("carol", kCarolSecret);
  DisablePrincipal("carol");
  AdminAuthenticator auth = MakeAuthenticator(
      {.checks_per_second = 1, .check_burst = 2, .max_check_wait = absl::ZeroDuration()});
  ASSERT_TRUE(auth.Authenticate(kPeer, Bearer(kSecret)).ok());                // the first token
  ASSERT_TRUE(auth.Authenticate(kPeer, Bearer(kCarolSecret), "carol").ok());  // the second
  // No token is left: the enabled admin, whose secret passed, is still checked; carol is not.
  EXPECT_TRUE(auth.Authenticate(kPeer, Bearer(kSecret)).ok());
  EXPECT_EQ(auth.Authenticate(kPeer, Bearer(kCarolSecret), "carol").status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(AdminAuthTest, TheCurrentPrincipalIsReadFreshOnEveryCall) {
  StoreSecret();
  StorePrincipal("carol", kCarolSecret);
  AdminAuthenticator auth = MakeAuthenticator();
  absl::StatusOr<AdminPrincipal> carol = auth.CurrentPrincipal("carol");
  ASSERT_TRUE(carol.ok()) << carol.status();
  EXPECT_TRUE(carol->enabled);
  DisablePrincipal("carol");
  EXPECT_FALSE(auth.CurrentPrincipal("carol")->enabled);
  EXPECT_EQ(auth.CurrentPrincipal("nobody").status().code(), absl::StatusCode::kPermissionDenied);
}

TEST(PeerHostTest, DropsThePortOfNetworkPeers) {
  EXPECT_EQ(PeerHost("ipv4:127.0.0.1:5555"), "ipv4:127.0.0.1");
  EXPECT_EQ(PeerHost("ipv6:[::1]:5555"), "ipv6:[::1]");
  EXPECT_EQ(PeerHost("ipv6:%5B::1%5D:5555"), "ipv6:%5B::1%5D");
  EXPECT_EQ(PeerHost("unix:/run/verdict/admin.sock"), "unix:/run/verdict/admin.sock");
  EXPECT_EQ(PeerHost("unix:"), "unix:");
}

}  // namespace
}  // namespace verdict
