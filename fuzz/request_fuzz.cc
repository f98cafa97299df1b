// The request-to-engine translation (server/proto_convert.h) and the decision behind it, on
// arbitrary wire bytes read as an AuthorizeRequest (and as a BatchAuthorizeRequest and a
// SimulateRequest). Whatever the bytes, nothing crashes, and an ALLOW is only ever what the
// one policy below grants: agt_fuzz may read docs:public:* except docs:public:secret. Simulate
// without what-ifs decides as Authorize does.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "decision/authorizer.h"
#include "decision/request_validation.h"
#include "decision/resource_match.h"
#include "fuzz/fuzz_check.h"
#include "server/proto_convert.h"
#include "testing/memory_store.h"
#include "verdict/v1/decision.pb.h"

namespace verdict {
namespace {

constexpr char kAgent[] = "agt_fuzz";
constexpr char kGranted[] = "docs:public:*";
constexpr char kDenied[] = "docs:public:secret";

MemoryPolicyStore& Policy() {
  static MemoryPolicyStore* store = [] {
    auto* policy = new MemoryPolicyStore();
    Agent agent;
    agent.id = kAgent;
    (void)policy->AddAgent(agent);
    Permission read;
    read.agent_id = kAgent;
    read.resource = kGranted;
    read.actions = {"read"};
    (void)policy->AddPermission(read);
    Permission deny = read;
    deny.resource = kDenied;
    deny.actions = {"*"};
    deny.effect = Effect::kDeny;
    (void)policy->AddPermission(deny);
    return policy;
  }();
  return *store;
}

// A fixed time: decisions must not depend on when the fuzzer runs.
absl::Time FixedNow() { return absl::FromUnixSeconds(1'800'000'000); }

void CheckAllowIsGranted(const Request& request, const Decision& decision) {
  if (decision.verdict != Verdict::kAllow) return;
  FUZZ_CHECK(request.subject.agent_id == kAgent, "only agt_fuzz is ever allowed");
  FUZZ_CHECK(request.action == "read", "only read is ever allowed");
  FUZZ_CHECK(ResourceMatches(kGranted, request.resource), "only a granted resource is allowed");
  FUZZ_CHECK(!ResourceMatches(kDenied, request.resource), "a deny overrides the allow");
}

void DecideAuthorize(Authorizer& authorizer, const v1::AuthorizeRequest& wire) {
  absl::StatusOr<Request> request = RequestFromProto(wire);
  if (!request.ok()) return;
  absl::StatusOr<Decision> decision = authorizer.Authorize(*request);
  FUZZ_CHECK(
      decision.ok() || ValidateRequest(*request).code() == absl::StatusCode::kInvalidArgument,
      "the in-memory store never fails: an error is an invalid request");
  if (!decision.ok()) return;
  CheckAllowIsGranted(*request, *decision);
  absl::StatusOr<Simulation> simulation = authorizer.Simulate(*request, WhatIf());
  FUZZ_CHECK(simulation.ok(), "Simulate takes what Authorize takes");
  FUZZ_CHECK(simulation->decision.verdict == decision->verdict &&
                 simulation->decision.reason == decision->reason,
             "Simulate without what-ifs decides as Authorize");
  v1::AuthorizeResponse response;
  DecisionToProto(*decision, &response);
}

}  // namespace
}  // namespace verdict

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace verdict;
  Authorizer authorizer(Policy(), FixedNow);

  v1::AuthorizeRequest authorize;
  if (authorize.ParseFromArray(data, static_cast<int>(size)))
    DecideAuthorize(authorizer, authorize);

  v1::BatchAuthorizeRequest batch;
  if (batch.ParseFromArray(data, static_cast<int>(size))) {
    absl::StatusOr<BatchRequest> checks = BatchRequestFromProto(batch);
    if (checks.ok()) {
      absl::StatusOr<std::vector<Decision>> decisions = authorizer.BatchAuthorize(*checks);
      if (decisions.ok()) {
        FUZZ_CHECK(decisions->size() == checks->checks.size(), "one decision per check");
        for (size_t i = 0; i < checks->checks.size(); ++i) {
          Request request;
          request.subject = checks->subject;
          request.action = checks->checks[i].action;
          request.resource = checks->checks[i].resource;
          CheckAllowIsGranted(request, (*decisions)[i]);
        }
      }
    }
  }

  v1::SimulateRequest simulate;
  if (simulate.ParseFromArray(data, static_cast<int>(size))) {
    absl::StatusOr<Request> request = RequestFromProto(simulate.request());
    absl::StatusOr<WhatIf> what_if = WhatIfFromProto(simulate.what_if());
    if (request.ok() && what_if.ok()) {
      absl::StatusOr<Simulation> simulation = authorizer.Simulate(*request, *what_if);
      if (simulation.ok()) {
        v1::SimulateResponse response;
        SimulationToProto(*simulation, &response);
      }
    }
  }
  return 0;
}
