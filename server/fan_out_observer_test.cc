#include "server/fan_out_observer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;

class RecordingObserver final : public DecisionObserver {
 public:
  RecordingObserver(std::string name, std::vector<std::string>* log) : name_(name), log_(log) {}
  void OnDecision(const Request& request, const Decision& decision,
                  absl::Duration latency) override {
    log_->push_back(name_ + ":" + request.request_id + ":" + ReasonCodeName(decision.reason) + ":" +
                    std::to_string(absl::ToInt64Microseconds(latency)));
  }

 private:
  const std::string name_;
  std::vector<std::string>* log_;
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
  observers.OnDecision(request, decision, absl::Microseconds(42));
  EXPECT_THAT(log,
              ElementsAre("metrics:req-1:AGENT_REVOKED:42", "decision_log:req-1:AGENT_REVOKED:42"));
}

}  // namespace
}  // namespace verdict
