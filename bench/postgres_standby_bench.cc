// The figures of store/POSTGRES.md's capacity model (issue 22), on a primary with two synchronous
// standbys (scripts/pg-standby-cluster.sh), in one run:
//
//   1. a direct decision (Authorizer over PostgresStore: one agent, one permission) against a
//      bare "SELECT 1" round trip to the same server, interleaved call by call;
//   2. decisions per second read on one standby (--db_read), several threads;
//   3. an admin write's latency (suspend, then reactivate an agent) with 0, 1 and 2 synchronous
//      standbys under remote_apply.
//
//   bazel run //bench:postgres_standby_bench -- PRIMARY_URL STANDBY1_URL STANDBY2_URL
//   bazel run //bench:postgres_standby_bench -- PRIMARY_URL   # phase 1 alone, any server
//
// It changes the primary's synchronous_standby_names for phase 3 and puts 'ANY 2 (s1, s2)' back.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "app/policy_json.h"
#include "decision/authorizer.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/postgres_test_support.h"
#include "store/postgres_store.h"

namespace verdict {
namespace {

constexpr char kPolicy[] = R"json({
  "version": 1,
  "agents": [{"id": "agt_bench", "owner": "bench", "name": "bench", "kind": "service",
              "status": "active"}],
  "permissions": [{"id": "perm_bench", "agent_id": "agt_bench", "resource": "docs:*",
                   "actions": ["read"], "effect": "allow"}]
})json";

struct Summary {
  absl::Duration median, min, max;
};

Summary Summarise(std::vector<absl::Duration> samples) {
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front(), samples.back()};
}

void Print(const char* what, const Summary& s) {
  std::printf("%-44s median %8.1f us   min %8.1f us   max %9.1f us\n", what,
              absl::ToDoubleMicroseconds(s.median), absl::ToDoubleMicroseconds(s.min),
              absl::ToDoubleMicroseconds(s.max));
}

Request ReadDocs() {
  Request request;
  request.subject.agent_id = "agt_bench";
  request.action = "read";
  request.resource = "docs:report:7";
  return request;
}

bool Run(PostgresConnection& admin_connection, const char* sql) {
  absl::Status done = admin_connection.ExecuteScript(sql);
  if (!done.ok()) std::fprintf(stderr, "%s: %s\n", sql, std::string(done.message()).c_str());
  return done.ok();
}

int Main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    std::fprintf(stderr, "usage: %s PRIMARY_URL [STANDBY1_URL STANDBY2_URL]\n", argv[0]);
    return 2;
  }
  setenv(kPostgresUrlVariable, argv[1], 1);
  absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
  if (!schema.ok()) {
    std::fprintf(stderr, "schema: %s\n", schema.status().ToString().c_str());
    return 1;
  }
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return 1;
  absl::StatusOr<std::unique_ptr<PostgresConnection>> admin_connection =
      PostgresConnection::Open(**pq, argv[1], {});
  if (!admin_connection.ok()) return 1;
  auto clock = [] { return absl::Now(); };

  // 1. A direct decision against a bare round trip, one after the other, one connection each.
  {
    PostgresOptions options;
    options.connections = 1;
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(schema->conninfo(), options);
    if (!store.ok()) return 1;
    if (!ImportPolicyJson((*store)->admin(), kPolicy).ok()) return 1;
    absl::StatusOr<std::unique_ptr<PostgresConnection>> bare =
        PostgresConnection::Open(**pq, schema->conninfo(), {});
    if (!bare.ok()) return 1;
    Authorizer authorizer(**store, clock);
    std::vector<absl::Duration> decisions, round_trips;
    constexpr int kWarmup = 200, kSamples = 3000;
    for (int i = 0; i < kWarmup + kSamples; ++i) {
      const absl::Time started = absl::Now();
      absl::StatusOr<Decision> decision = authorizer.Authorize(ReadDocs());
      const absl::Time decided = absl::Now();
      if (!decision.ok() || decision->verdict != Verdict::kAllow) {
        std::fprintf(stderr, "the decision failed\n");
        return 1;
      }
      absl::StatusOr<ResultRows> one = (*bare)->Query("SELECT 1");
      const absl::Time answered = absl::Now();
      if (!one.ok()) return 1;
      if (i < kWarmup) continue;
      decisions.push_back(decided - started);
      round_trips.push_back(answered - decided);
    }
    const Summary decision = Summarise(decisions), round_trip = Summarise(round_trips);
    std::printf("== 1. one connection each, %d interleaved samples\n", kSamples);
    Print("direct decision (Authorize, PostgreSQL)", decision);
    Print("bare SELECT 1 round trip", round_trip);
    std::printf("ratio of medians: %.2fx\n",
                absl::FDivDuration(decision.median, round_trip.median));
  }
  if (argc == 2) return 0;

  // 2. Decisions per second read on one standby.
  for (int threads : {1, 2, 4, 8}) {
    PostgresOptions options;
    options.connections = threads;
    options.read_conninfos = {WithSearchPath(argv[2], schema->name())};
    ReadRouteCounters counters;
    options.read_counters = &counters;
    absl::StatusOr<std::unique_ptr<PostgresStore>> store =
        PostgresStore::Open(schema->conninfo(), options);
    if (!store.ok()) return 1;
    Authorizer authorizer(**store, clock);
    std::atomic<bool> stop{false};
    std::atomic<int64_t> decided{0}, failed{0};
    std::vector<std::thread> workers;
    const absl::Duration length = absl::Seconds(5);
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&] {
        while (!stop.load()) {
          absl::StatusOr<Decision> decision = authorizer.Authorize(ReadDocs());
          (decision.ok() && decision->verdict == Verdict::kAllow ? decided : failed)++;
        }
      });
    }
    absl::SleepFor(length);
    stop = true;
    for (auto& worker : workers) worker.join();
    std::printf(
        "== 2. %d thread(s) on one standby: %.0f decisions/s (%lld on the standby, %lld on the "
        "primary, %lld failed)\n",
        threads, decided.load() / absl::ToDoubleSeconds(length),
        static_cast<long long>(counters.on_standby.load()),
        static_cast<long long>(counters.on_primary.load()), static_cast<long long>(failed.load()));
  }

  // 3. An admin write's latency with 0, 1 and 2 synchronous standbys (remote_apply).
  {
    absl::StatusOr<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(schema->conninfo());
    if (!store.ok()) return 1;
    for (const char* names : {"", "ANY 1 (s1)", "ANY 2 (s1, s2)"}) {
      if (!Run(
              **admin_connection,
              absl::StrCat("ALTER SYSTEM SET synchronous_standby_names = '", names, "'").c_str()) ||
          !Run(**admin_connection, "SELECT pg_reload_conf()")) {
        return 1;
      }
      absl::SleepFor(absl::Seconds(1));  // a benchmark, not a test: the reload reaches backends
      std::vector<absl::Duration> writes;
      for (int i = 0; i < 400; ++i) {
        const absl::Time started = absl::Now();
        absl::StatusOr<Agent> changed = (*store)->admin().SetAgentStatus(
            "agt_bench", i % 2 == 0 ? AgentStatus::kSuspended : AgentStatus::kActive);
        if (!changed.ok()) {
          std::fprintf(stderr, "write: %s\n", changed.status().ToString().c_str());
          return 1;
        }
        writes.push_back(absl::Now() - started);
      }
      Print(absl::StrCat("== 3. admin write, synchronous_standby_names '", names, "'").c_str(),
            Summarise(writes));
    }
    Run(**admin_connection, "ALTER SYSTEM SET synchronous_standby_names = 'ANY 2 (s1, s2)'");
    Run(**admin_connection, "SELECT pg_reload_conf()");
  }
  return 0;
}

}  // namespace
}  // namespace verdict

int main(int argc, char** argv) { return verdict::Main(argc, argv); }
