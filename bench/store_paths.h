// The decision calls as benchmarks over any store: Authorize (direct and through three hops),
// ValidateToken and Simulate with its trace, each call through an Authorizer, so each in a
// fresh read transaction exactly as the server makes it. store_bench runs them on SQLite files,
// postgres_store_bench on PostgreSQL.
//
//   Authorizer authorizer(store, [] { return absl::Now(); });
//   RegisterStorePathBenchmarks("BM_Store", /*agents=*/50000, authorizer);
//   // BM_StoreAuthorizeDirect/agents:50000, ...ThreeHops, ...ValidateToken, ...SimulateTrace
//
// Each benchmark checks the answers to its probes against the dataset's prediction before it
// starts timing (all kProbes of them, unless a broken variant makes that take more than two
// seconds), and reports per-call percentiles (p50_us, p99_us) next to the mean.
#ifndef VERDICT_BENCH_STORE_PATHS_H_
#define VERDICT_BENCH_STORE_PATHS_H_

#include <cstdint>
#include <string>

#include "decision/authorizer.h"

namespace verdict::bench {

// Registers the four benchmarks of one dataset size, named <prefix>AuthorizeDirect/agents:N,
// <prefix>AuthorizeThreeHops/agents:N, <prefix>ValidateToken/agents:N and
// <prefix>SimulateTrace/agents:N. `authorizer` must outlive the benchmarks' run.
void RegisterStorePathBenchmarks(const std::string& prefix, int64_t agents, Authorizer& authorizer);

}  // namespace verdict::bench

#endif  // VERDICT_BENCH_STORE_PATHS_H_
