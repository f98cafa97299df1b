#include "tests/decision_traffic.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <utility>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace verdict {

v1::AuthorizeResponse DecideReadDocs(v1::DecisionService::Stub& stub, const std::string& agent_id,
                                     bool* failed) {
  v1::AuthorizeRequest request;
  request.mutable_subject()->set_agent_id(agent_id);
  request.set_action("read");
  request.set_resource("docs:report:7");
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::AuthorizeResponse response;
  const grpc::Status status = stub.Authorize(&context, request, &response);
  if (failed != nullptr) *failed = !status.ok();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response;
}

DecisionTraffic::DecisionTraffic(v1::DecisionService::Stub& stub, std::string agent_id,
                                 absl::Duration pause)
    : thread_(
          [this, &stub, agent_id = std::move(agent_id), pause] { Run(stub, agent_id, pause); }) {}

DecisionTraffic::~DecisionTraffic() {
  if (thread_.joinable()) Stop();
}

void DecisionTraffic::Run(v1::DecisionService::Stub& stub, const std::string& agent_id,
                          absl::Duration pause) {
  while (!stop_.load()) {
    bool failed = false;
    const v1::AuthorizeResponse response = DecideReadDocs(stub, agent_id, &failed);
    if (failed) ++errors_;
    if (response.verdict() == v1::VERDICT_DENY) seen_deny_ = true;
    if (seen_deny_ && response.verdict() == v1::VERDICT_ALLOW) ++allows_after_deny_;
    ++calls_;
    absl::SleepFor(pause);
  }
}

void DecisionTraffic::AwaitCalls(int count) const {
  while (calls_.load() < count) absl::SleepFor(absl::Milliseconds(1));
}

void DecisionTraffic::Stop() {
  stop_ = true;
  thread_.join();
}

}  // namespace verdict
