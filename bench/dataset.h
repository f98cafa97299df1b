// The benchmark dataset: a synthetic policy whose every decision is known in advance.
//
// Everything is a pure function of the agent count, so the data generator (bench/dataset_db.h),
// the in-process benchmarks and the load generator agree without sharing a file: the load
// generator checks each answer of a running verdictd against ExpectedFor(probe).
//
// Agent i ("agt_bench_0000042") is active, never expires, has a deterministic token and four
// permissions, in this order:
//   0  allow "docs:42:*"             [read, write]
//   1  allow "/api/agents/42/**"     [GET, PUT]
//   2  deny  "docs:42:secret:*"      [*]
//   3  allow "tickets:42:*"          [create]   with an IPv4 allowlist
// Agents come in groups of four (a0..a3) chained by three delegation links a0->a1->a2->a3, each
// lending read on "docs:<a0>:shared:*" (max depth 3). A third of the links are revoked: chains
// of group g with g % 3 == 0 are whole, g % 3 == 1 lose their middle link, g % 3 == 2 their
// first and last. Agents past the last whole group of four have no links.
//
//   Probe probe = MakeProbe(ProbeKind::kThreeHops, /*agents=*/50000, rng());
//   ... send probe.request ...; compare the answer with probe.expected.
#ifndef VERDICT_BENCH_DATASET_H_
#define VERDICT_BENCH_DATASET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/types.h"

namespace verdict::bench {

inline constexpr int kPermissionsPerAgent = 4;
inline constexpr int kAgentsPerChain = 4;
inline constexpr int kLinksPerChain = kAgentsPerChain - 1;
// The creation time of every row: fixed, so two generations of one dataset are identical.
inline constexpr int64_t kCreatedAtUnixSeconds = 1735689600;  // 2025-01-01T00:00:00Z

std::string AgentId(int64_t agent);
// "vdt_" + base64url(SHA-256("verdict-bench:" + AgentId(agent))): a well-formed agent token.
std::string AgentToken(int64_t agent);
Agent AgentRow(int64_t agent);
// The agent's four permissions, in creation order (see the file comment).
std::vector<Permission> PermissionsOf(int64_t agent);

// How many delegation chains `agents` agents form.
int64_t ChainCount(int64_t agents);
// Chain `chain`'s three links, from a0 towards a3, revoked ones included.
std::vector<Delegation> ChainLinks(int64_t chain);
bool LinkRevoked(int64_t chain, int link);

// One effective permission as ValidateToken lists it, reduced to what the dataset predicts:
// "<permission id> <allow|deny> <resource> <action,action,...>".
std::string GrantLine(absl::string_view permission_id, bool allow, absl::string_view resource,
                      const std::vector<std::string>& actions);

// The effective permissions ValidateToken must list for `agent` among `agents`, as GrantLines:
// its own four, then the one lent by the link into it when that link is live (its delegator
// holds allows of its own, so it is an origin).
std::vector<std::string> EffectivePermissionLines(int64_t agent, int64_t agents);

// "" when they agree; otherwise the first line that differs, with both values.
std::string DescribeGrantLinesDifference(const std::vector<std::string>& expected,
                                         const std::vector<std::string>& actual);

// What to ask. Each kind has a single right answer.
enum class ProbeKind {
  kDirect,          // read on the agent's own docs: ALLOW by permission 0
  kDirectPath,      // GET under the agent's own path: ALLOW by permission 1 (a ** glob)
  kDeniedByPolicy,  // read on the agent's secret docs: DENY by permission 2
  kThreeHops,       // a3 of a whole chain reads a0's shared docs: ALLOW through three links
  kRevokedChain,    // a3 of a broken chain reads a0's shared docs: NO_MATCHING_PERMISSION
  kNoMatch,         // a resource no permission names: NO_MATCHING_PERMISSION
};

// A decision reduced to what the dataset predicts, spelled as on the wire ("ALLOW",
// "NO_MATCHING_PERMISSION"), so the engine's decisions and a server's answers are checked by
// one function.
struct Outcome {
  std::string verdict;
  std::string reason;
  std::string permission_id;                // of the matched grant; empty when none
  std::vector<std::string> delegation_ids;  // the path, from the owner to the subject
};

Outcome OutcomeOf(const Decision& decision);

// "" when they agree; otherwise every field that differs, with both values.
std::string DescribeDifference(const Outcome& expected, const Outcome& actual);

struct Probe {
  Request request;   // subject by agent id
  Outcome expected;  // what verdict must answer
};

// A probe of `kind` on an agent (or chain) chosen by `pick` (any value; reduced modulo the
// eligible population). kThreeHops and kRevokedChain need agents >= 12.
Probe MakeProbe(ProbeKind kind, int64_t agents, uint64_t pick);

}  // namespace verdict::bench

#endif  // VERDICT_BENCH_DATASET_H_
