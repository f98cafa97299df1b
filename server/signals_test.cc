#include "server/signals.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "gtest/gtest.h"

namespace verdict {
namespace {

TEST(SignalsTest, AwaitReturnsTheTerminationSignalThatArrived) {
  ASSERT_TRUE(BlockTerminationSignals().ok());
  for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
    // Blocked, so the signal stays pending instead of ending the test process.
    ASSERT_EQ(raise(signal_number), 0);
    EXPECT_EQ(AwaitTerminationSignal(), signal_number);
  }
}

TEST(SignalsTest, AWriteToAPipeWithoutAReaderFailsInsteadOfEndingTheProcess) {
  ASSERT_TRUE(BlockTerminationSignals().ok());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  errno = 0;
  EXPECT_EQ(write(fds[1], "x", 1), -1);
  EXPECT_EQ(errno, EPIPE);
  close(fds[1]);
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
