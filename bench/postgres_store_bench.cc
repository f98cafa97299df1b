// The decision calls on PostgreSQL (issue 8), each call in a fresh read transaction exactly as
// the server makes it (the Authorizer over PostgresStore), on the benchmark dataset
// (bench/dataset.h) loaded into a schema of its own:
//
//   bazel run -c opt //bench:postgres_store_bench -- --agents=50000 --postgres_url=$URL
//   bazel run -c opt //bench:postgres_store_bench -- --postgres_url=$URL --prepare_only
//
// with $URL as postgresql://postgres@127.0.0.1:55432/verdict. The dataset goes in once through
// ImportPolicy (one transaction, so a schema that holds any agent holds all of them) into
// schema verdict_bench_<agents>, and is reused by later runs.
// --prepare_only loads it, prints the URL that reaches it and exits: scripts/pg-bench.sh serves
// it with two verdictd processes for the load generator. The benchmarks themselves, and how they
// check their answers: bench/store_paths.h.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/dataset.h"
#include "bench/store_paths.h"
#include "benchmark/benchmark.h"
#include "crypto/sha256.h"
#include "decision/authorizer.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres_store.h"

ABSL_FLAG(std::string, postgres_url, "",
          "the PostgreSQL server (a postgresql:// URL); the dataset gets a schema of its own");
ABSL_FLAG(int64_t, agents, 50000, "dataset size (agents)");
ABSL_FLAG(int, connections, 1, "connections in the store's pool");
ABSL_FLAG(bool, prepare_only, false, "load the dataset, print the URL that reaches it, and exit");

namespace verdict::bench {
namespace {

// The whole dataset as a policy, as bench/dataset_db.h writes it into SQLite.
PolicyContents DatasetPolicy(int64_t agents) {
  PolicyContents policy;
  for (int64_t i = 0; i < agents; ++i) {
    policy.agents.push_back({AgentRow(i), Sha256(AgentToken(i))});
    for (Permission& permission : PermissionsOf(i)) {
      policy.permissions.push_back(std::move(permission));
    }
  }
  for (int64_t chain = 0; chain < ChainCount(agents); ++chain) {
    for (Delegation& link : ChainLinks(chain)) policy.delegations.push_back(std::move(link));
  }
  return policy;
}

// The URL of the dataset's schema, loading the dataset first when the schema is empty.
absl::StatusOr<std::string> EnsureDataset(const std::string& url, int64_t agents) {
  const std::string schema = absl::StrCat("verdict_bench_", agents);
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  if (!pq.ok()) return pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> admin =
      PostgresConnection::Open(**pq, url, {});
  if (!admin.ok()) return admin.status();
  const std::string create = absl::StrCat("CREATE SCHEMA IF NOT EXISTS ", schema);
  if (absl::Status s = (*admin)->ExecuteScript(create.c_str()); !s.ok()) return s;
  const std::string dataset_url = absl::StrCat(url, url.find('?') == std::string::npos ? "?" : "&",
                                               "options=-csearch_path%3D", schema);
  absl::StatusOr<std::unique_ptr<PostgresStore>> store = PostgresStore::Open(dataset_url);
  if (!store.ok()) return store.status();
  absl::StatusOr<bool> empty = (*store)->admin().IsEmpty();
  if (!empty.ok()) return empty.status();
  if (*empty) {
    const absl::Time started = absl::Now();
    if (absl::Status s = (*store)->admin().ImportPolicy(DatasetPolicy(agents)); !s.ok()) return s;
    // Fresh statistics, so the planner sees the tables as they are.
    if (absl::Status s = (*admin)->ExecuteScript(
            absl::StrCat("SET search_path = ", schema, "; ANALYZE").c_str());
        !s.ok()) {
      return s;
    }
    std::fprintf(stderr, "dataset of %lld agents loaded into schema %s in %.1f s\n",
                 static_cast<long long>(agents), schema.c_str(),
                 absl::ToDoubleSeconds(absl::Now() - started));
  }
  return dataset_url;
}

}  // namespace
}  // namespace verdict::bench

int main(int argc, char** argv) {
  using namespace verdict;
  using namespace verdict::bench;
  benchmark::Initialize(&argc, argv);
  absl::ParseCommandLine(argc, argv);
  const std::string url = absl::GetFlag(FLAGS_postgres_url);
  const int64_t agents = absl::GetFlag(FLAGS_agents);
  if (url.empty() || agents < 12) {
    std::fprintf(stderr, "postgres_store_bench: --postgres_url and --agents >= 12 are needed\n");
    return 2;
  }
  absl::StatusOr<std::string> dataset_url = EnsureDataset(url, agents);
  if (!dataset_url.ok()) {
    std::fprintf(stderr, "postgres_store_bench: %s\n", dataset_url.status().ToString().c_str());
    return 1;
  }
  if (absl::GetFlag(FLAGS_prepare_only)) {
    std::printf("%s\n", dataset_url->c_str());
    return 0;
  }
  absl::StatusOr<std::unique_ptr<PostgresStore>> store =
      PostgresStore::Open(*dataset_url, {.connections = absl::GetFlag(FLAGS_connections)});
  if (!store.ok()) {
    std::fprintf(stderr, "postgres_store_bench: %s\n", store.status().ToString().c_str());
    return 1;
  }
  Authorizer authorizer(**store, [] { return absl::Now(); });
  // The store lives until the process exits, as the benchmarks do.
  RegisterStorePathBenchmarks("BM_Postgres", agents, authorizer);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
