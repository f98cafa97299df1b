// When a standby may serve verdict's reads (issue 22): only while no commit can be acknowledged
// before it applied it. Facts as the checker reads them; no server needed.
#include "store/postgres/standby_rules.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using Method = SynchronousStandbys::Method;

// A primary as scripts/pg-standby-cluster.sh configures it: remote_apply, both standbys
// required, both streaming and synchronous.
PrimaryFacts HealthyPrimary() {
  PrimaryFacts primary;
  primary.synchronous_commit = "remote_apply";
  primary.synchronous_commit_source = "configuration file";  // ALTER SYSTEM SET
  primary.synchronous_standby_names = "ANY 2 (s1, s2)";
  primary.wal_lsn = 0x3000060;
  primary.senders = {{"s1", "streaming", "quorum"}, {"s2", "streaming", "quorum"}};
  return primary;
}

StandbyFacts HealthyStandby(const char* name) {
  return StandbyFacts{.in_recovery = true,
                      .cluster_name = name,
                      .replay_lsn = 0x3000060,
                      .receiver_status = "streaming"};
}

absl::Status Judge(const PrimaryFacts& primary, const StandbyFacts& standby,
                   int64_t required_lsn = 0x3000060) {
  absl::StatusOr<SynchronousStandbys> quorum = PrimaryWaitsForEveryListedStandby(primary);
  if (!quorum.ok()) return quorum.status();
  return JudgeStandby(primary, *quorum, standby, required_lsn);
}

void ExpectRefused(const absl::Status& judged, absl::string_view why) {
  EXPECT_EQ(judged.code(), absl::StatusCode::kFailedPrecondition) << judged;
  EXPECT_TRUE(absl::StrContains(judged.message(), why)) << judged.message();
}

TEST(ParseSynchronousStandbyNamesTest, ReadsEachFormPostgresAccepts) {
  absl::StatusOr<SynchronousStandbys> any = ParseSynchronousStandbyNames("ANY 2 (s1, \"S 2\")");
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ(any->method, Method::kAny);
  EXPECT_EQ(any->count, 2);
  EXPECT_EQ(any->names, (std::vector<std::string>{"s1", "S 2"}));

  absl::StatusOr<SynchronousStandbys> first = ParseSynchronousStandbyNames("first 1 (a,b)");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->method, Method::kFirst);
  EXPECT_EQ(first->count, 1);

  absl::StatusOr<SynchronousStandbys> counted = ParseSynchronousStandbyNames(" 2(a, b) ");
  ASSERT_TRUE(counted.ok()) << counted.status();
  EXPECT_EQ(counted->method, Method::kFirst);
  EXPECT_EQ(counted->count, 2);

  // A bare list waits for its first connected standby only.
  absl::StatusOr<SynchronousStandbys> bare = ParseSynchronousStandbyNames("a, b");
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ(bare->count, 1);
  EXPECT_EQ(bare->names.size(), 2u);

  absl::StatusOr<SynchronousStandbys> quoted = ParseSynchronousStandbyNames("\"a\"\"b\"");
  ASSERT_TRUE(quoted.ok()) << quoted.status();
  EXPECT_EQ(quoted->names, (std::vector<std::string>{"a\"b"}));

  absl::StatusOr<SynchronousStandbys> none = ParseSynchronousStandbyNames("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->names.empty());
}

TEST(ParseSynchronousStandbyNamesTest, RefusesWhatPostgresWouldRefuse) {
  for (const char* bad : {"ANY 2 (a, b", "FIRST 0 (a)", "a,", "(a)", "\"a", "a b"}) {
    EXPECT_FALSE(ParseSynchronousStandbyNames(bad).ok()) << bad;
  }
}

TEST(JudgeStandbyTest, AStreamingStandbyEveryCommitWaitsForServesReads) {
  EXPECT_TRUE(Judge(HealthyPrimary(), HealthyStandby("s1")).ok());
  PrimaryFacts first = HealthyPrimary();
  first.synchronous_standby_names = "FIRST 2 (s1, s2)";
  first.senders = {{"s1", "streaming", "sync"}, {"s2", "streaming", "sync"}};
  EXPECT_TRUE(Judge(first, HealthyStandby("s2")).ok());
  // Names compare as PostgreSQL compares them.
  EXPECT_TRUE(Judge(HealthyPrimary(), HealthyStandby("S1")).ok());
}

TEST(JudgeStandbyTest, RefusedUnlessTheServersCommitsWaitForTheStandbyToApply) {
  for (const char* level : {"on", "remote_write", "local", "off"}) {
    PrimaryFacts primary = HealthyPrimary();
    primary.synchronous_commit = level;
    ExpectRefused(Judge(primary, HealthyStandby("s1")), "not 'remote_apply'");
  }
  PrimaryFacts lowered = HealthyPrimary();
  lowered.lowering_overrides = 1;  // ALTER ROLE writer SET synchronous_commit = on
  ExpectRefused(Judge(lowered, HealthyStandby("s1")), "pg_db_role_setting");
  PrimaryFacts standby_as_primary = HealthyPrimary();
  standby_as_primary.in_recovery = true;
  ExpectRefused(Judge(standby_as_primary, HealthyStandby("s1")), "itself a standby");
}

// The checker's own session may show remote_apply while the server's writers commit with `on`:
// ALTER ROLE verdict SET synchronous_commit = remote_apply, or options=-c in its conninfo. Only a
// server-wide source speaks for every writer.
TEST(JudgeStandbyTest, RefusedWhenRemoteApplyIsOnlyTheCheckersOwnSetting) {
  for (const char* source :
       {"user", "database", "database user", "client", "session", "interactive", ""}) {
    PrimaryFacts primary = HealthyPrimary();
    primary.synchronous_commit_source = source;
    ExpectRefused(Judge(primary, HealthyStandby("s1")), "not server-wide");
  }
  for (const char* source :
       {"configuration file", "command line", "environment variable", "default", "global"}) {
    PrimaryFacts primary = HealthyPrimary();
    primary.synchronous_commit_source = source;
    EXPECT_TRUE(Judge(primary, HealthyStandby("s1")).ok()) << source;
  }
}

TEST(JudgeStandbyTest, RefusedWhenTheQuorumMayAcknowledgeWithoutEveryListedStandby) {
  // ANY 1 of two: a commit returns once either applied it, so the other may lag.
  for (const char* names : {"ANY 1 (s1, s2)", "FIRST 1 (s1, s2)", "s1, s2", "2 (s1, s2, s3)"}) {
    PrimaryFacts primary = HealthyPrimary();
    primary.synchronous_standby_names = names;
    ExpectRefused(Judge(primary, HealthyStandby("s1")), "may lag");
  }
  PrimaryFacts star = HealthyPrimary();
  star.synchronous_standby_names = "ANY 1 (*)";
  ExpectRefused(Judge(star, HealthyStandby("s1")), "'*'");
  PrimaryFacts twice = HealthyPrimary();
  twice.synchronous_standby_names = "ANY 2 (s1, S1)";
  ExpectRefused(Judge(twice, HealthyStandby("s1")), "twice");
  PrimaryFacts none = HealthyPrimary();
  none.synchronous_standby_names = "";
  ExpectRefused(Judge(none, HealthyStandby("s1")), "empty");
}

TEST(JudgeStandbyTest, RefusedUnlessTheStandbyIsListedConnectedAndSynchronous) {
  ExpectRefused(Judge(HealthyPrimary(), HealthyStandby("s3")), "not in synchronous_standby_names");
  ExpectRefused(Judge(HealthyPrimary(), HealthyStandby("")), "no cluster_name");
  StandbyFacts promoted = HealthyStandby("s1");
  promoted.in_recovery = false;
  ExpectRefused(Judge(HealthyPrimary(), promoted), "not a standby");

  PrimaryFacts disconnected = HealthyPrimary();
  disconnected.senders = {{"s2", "streaming", "quorum"}};
  ExpectRefused(Judge(disconnected, HealthyStandby("s1")), "not connected");
  PrimaryFacts catching_up = HealthyPrimary();
  catching_up.senders[0] = {"s1", "catchup", "potential"};
  ExpectRefused(Judge(catching_up, HealthyStandby("s1")), "not a streaming synchronous standby");
  PrimaryFacts async = HealthyPrimary();
  async.senders[0] = {"s1", "streaming", "async"};
  ExpectRefused(Judge(async, HealthyStandby("s1")), "not a streaming synchronous standby");
  PrimaryFacts hidden = HealthyPrimary();
  hidden.senders[0] = {"s1", "", ""};  // a role without pg_read_all_stats sees no details
  ExpectRefused(Judge(hidden, HealthyStandby("s1")), "pg_read_all_stats");
  PrimaryFacts same_name = HealthyPrimary();
  same_name.senders.push_back({"s1", "streaming", "potential"});
  ExpectRefused(Judge(same_name, HealthyStandby("s1")), "several standbys");

  StandbyFacts receiver_stopped = HealthyStandby("s1");
  receiver_stopped.receiver_status = "";
  ExpectRefused(Judge(HealthyPrimary(), receiver_stopped), "no WAL receiver");
  receiver_stopped.receiver_status = "stopping";
  ExpectRefused(Judge(HealthyPrimary(), receiver_stopped), "'stopping', not streaming");
}

TEST(JudgeStandbyTest, RefusedWhileBehindWhereThePrimaryWasOneCheckBefore) {
  StandbyFacts behind = HealthyStandby("s1");
  behind.replay_lsn = 0x3000000;
  ExpectRefused(Judge(HealthyPrimary(), behind, 0x3000060), "behind: replayed up to 0/3000000");
  StandbyFacts nothing = HealthyStandby("s1");
  nothing.replay_lsn.reset();
  ExpectRefused(Judge(HealthyPrimary(), nothing), "replayed up to nothing");
  EXPECT_TRUE(Judge(HealthyPrimary(), behind, 0x3000000).ok());
}

// One check before is enough only once the rule held at that check: until then, commits were
// acknowledged without the standby, up to the primary's position now.
TEST(RequiredReplayLsnTest, IsThePreviousChecksPositionOnlyInTheSteadyState) {
  PrimaryFacts before = HealthyPrimary();
  before.wal_lsn = 0x3000000;
  const PrimaryFacts now = HealthyPrimary();  // at 0/3000060
  EXPECT_EQ(RequiredReplayLsn(before, /*usable_at_previous=*/true, now), 0x3000000);

  EXPECT_EQ(RequiredReplayLsn(std::nullopt, true, now), 0x3000060);  // first check, or no quorum
  EXPECT_EQ(RequiredReplayLsn(before, /*usable_at_previous=*/false, now), 0x3000060);
  PrimaryFacts names_changed = before;
  names_changed.synchronous_standby_names = "ANY 1 (s1)";
  EXPECT_EQ(RequiredReplayLsn(names_changed, true, now), 0x3000060);
  PrimaryFacts commit_changed = before;
  commit_changed.synchronous_commit = "on";
  EXPECT_EQ(RequiredReplayLsn(commit_changed, true, now), 0x3000060);
  PrimaryFacts source_changed = before;
  source_changed.synchronous_commit_source = "command line";
  EXPECT_EQ(RequiredReplayLsn(source_changed, true, now), 0x3000060);
  PrimaryFacts lowered_then = before;
  lowered_then.lowering_overrides = 1;
  EXPECT_EQ(RequiredReplayLsn(lowered_then, true, now), 0x3000060);
}

// A lagging standby is refused at every check with a new LSN in the message; it is told once,
// because the reason, not the message, is what changes are told by.
TEST(RefusalReasonTest, StaysTheSameWhileOnlyTheMessagesFiguresChange) {
  StandbyFacts behind = HealthyStandby("s1");
  behind.replay_lsn = 0x3000000;
  const absl::Status first = Judge(HealthyPrimary(), behind, 0x3000060);
  behind.replay_lsn = 0x3000010;
  const absl::Status second = Judge(HealthyPrimary(), behind, 0x3000070);
  ASSERT_NE(first.message(), second.message());
  EXPECT_EQ(RefusalReason(first), RefusalReason(second));

  PrimaryFacts catching_up = HealthyPrimary();
  catching_up.senders[0] = {"s1", "catchup", "potential"};
  const absl::Status not_synchronous = Judge(catching_up, HealthyStandby("s1"));
  EXPECT_NE(RefusalReason(not_synchronous), RefusalReason(first));
  EXPECT_NE(RefusalReason(absl::OkStatus()), RefusalReason(first));
  // The checker's own failures, whatever libpq says, are one reason each.
  EXPECT_EQ(RefusalReason(Refusal(absl::StatusCode::kUnavailable, "standby unreachable",
                                  "it cannot be checked: timeout after 2000 ms")),
            RefusalReason(Refusal(absl::StatusCode::kUnavailable, "standby unreachable",
                                  "it cannot be checked: connection refused")));
}

TEST(FormatLsnTest, WritesPositionsAsPostgresDoes) {
  EXPECT_EQ(FormatLsn(0x3000060), "0/3000060");
  EXPECT_EQ(FormatLsn((int64_t{0x1A} << 32) | 0xB), "1A/B");
}

}  // namespace
}  // namespace verdict
