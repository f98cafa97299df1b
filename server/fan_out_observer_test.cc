#include "server/fan_out_observer.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;

class RecordingObserver final : public DecisionObserver {
 public:
  RecordingObserver(std::string name, std::vector<std::string>* log,
                    absl::Status answer = absl::OkStatus())
      : name_(name), log_(log), answer_(std::move(answer)) {}
  absl::Status OnDecision(const Request& request, const Decision& decision,
                          absl::Duration latency) override {
    log_->push_back(name_ + ":" + request.request_id + ":" + ReasonCodeName(decision.reason) + ":" +
                    std::to_string(absl::ToInt64Microseconds(latency)));
    return answer_;
  }
  void OnWithheld(absl::string_view call, size_t decisions) override {
    log_->push_back(name_ + ":withheld:" + std::string(call) + ":" + std::to_string(decisions));
  }

 private:
  const std::string name_;
  std::vector<std::string>* log_;
  const absl::Status answer_;
};

TEST(FanOutObserverTest, TellsEveryObserverInOrder) {
  std::vector<std::string> log;
  RecordingObserver metrics("metrics", &log);
  RecordingObserver decision_log("decision_log", &log);
  FanOutObserver observers;
  EXPECT_TRUE(observers.empty());
  observers.Add(&metrics);
  observers.Add(&decision_log);
  EXPECT_FALSE(observers.empty());

  Request request;
  request.request_id = "req-1";
  Decision decision;
  decision.reason = ReasonCode::kAgentRevoked;
  EXPECT_TRUE(observers.OnDecision(request, decision, absl::Microseconds(42)).ok());
  EXPECT_THAT(log,
              ElementsAre("metrics:req-1:AGENT_REVOKED:42", "decision_log:req-1:AGENT_REVOKED:42"));
}

// A synchronous decision log that did not keep the row refuses the decision: it will not be
// answered, so the observers after it (metrics) do not count it as answered.
TEST(FanOutObserverTest, ARefusalIsReturnedAndTheObserversAfterItAreNotTold) {
  std::vector<std::string> log;
  RecordingObserver decision_log("decision_log", &log, absl::UnavailableError("disk full"));
  RecordingObserver metrics("metrics", &log);
  FanOutObserver observers;
  observers.Add(&decision_log);
  observers.Add(&metrics);

  Request request;
  request.request_id = "req-1";
  Decision decision;
  decision.reason = ReasonCode::kAllowed;
  absl::Status recorded = observers.OnDecision(request, decision, absl::Microseconds(7));
  EXPECT_EQ(recorded, absl::UnavailableError("disk full"));
  EXPECT_THAT(log, ElementsAre("decision_log:req-1:ALLOWED:7"));

  observers.OnWithheld("Authorize", 1);
  EXPECT_THAT(log, ElementsAre("decision_log:req-1:ALLOWED:7", "decision_log:withheld:Authorize:1",
                               "metrics:withheld:Authorize:1"));
}

}  // namespace
}  // namespace verdict
