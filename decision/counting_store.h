// A PolicyStore that counts the read snapshots and write transactions begun over another store
// (testonly): each one hosts one decision, so a test can say how many decisions a call made.
//
//   MemoryPolicyStore memory;
//   CountingStore store(memory);
//   Authorizer authorizer(store, clock);
//   ... one call ...
//   EXPECT_EQ(store.reads, 1);
#ifndef VERDICT_DECISION_COUNTING_STORE_H_
#define VERDICT_DECISION_COUNTING_STORE_H_

#include <atomic>
#include <memory>

#include "absl/status/statusor.h"
#include "decision/policy_store.h"

namespace verdict {

// Safe to call from several threads at once (as `base` is); read the counts once the calls are
// done.
class CountingStore final : public PolicyStore {
 public:
  explicit CountingStore(PolicyStore& base) : base_(base) {}

  absl::StatusOr<std::unique_ptr<ReadSnapshot>> BeginRead() override {
    ++reads;
    return base_.BeginRead();
  }
  absl::StatusOr<std::unique_ptr<WriteTransaction>> BeginWrite() override {
    ++writes;
    return base_.BeginWrite();
  }

  std::atomic<int> reads{0};
  std::atomic<int> writes{0};

 private:
  PolicyStore& base_;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_COUNTING_STORE_H_
