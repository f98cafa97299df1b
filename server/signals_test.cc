#include "server/signals.h"

#include <signal.h>

#include "gtest/gtest.h"

namespace verdict {
namespace {

TEST(SignalsTest, AwaitReturnsTheTerminationSignalThatArrived) {
  ASSERT_TRUE(BlockTerminationSignals().ok());
  for (int signal_number : {SIGTERM, SIGINT}) {
    // Blocked, so the signal stays pending instead of ending the test process.
    ASSERT_EQ(raise(signal_number), 0);
    EXPECT_EQ(AwaitTerminationSignal(), signal_number);
  }
}

TEST(SignalsTest, BlockedSignalStaysPendingUntilAwaited) {
  ASSERT_TRUE(BlockTerminationSignals().ok());
  ASSERT_EQ(raise(SIGTERM), 0);
  sigset_t pending;
  ASSERT_EQ(sigpending(&pending), 0);
  EXPECT_EQ(sigismember(&pending, SIGTERM), 1);
  EXPECT_EQ(AwaitTerminationSignal(), SIGTERM);
  ASSERT_EQ(sigpending(&pending), 0);
  EXPECT_EQ(sigismember(&pending, SIGTERM), 0);
}

}  // namespace
}  // namespace verdict
