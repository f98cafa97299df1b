#include "store/test_support.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace verdict {

std::string FreshDatabasePath(const std::string& suffix) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = absl::StrReplaceAll(
      absl::StrCat(test->test_suite_name(), "_", test->name(), suffix), {{"/", "_"}});
  std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name, ".db");
  for (const char* extension : {"", "-wal", "-shm"}) {
    std::remove(absl::StrCat(path, extension).c_str());
  }
  return path;
}

absl::Time ManualClock::Now() const {
  absl::MutexLock lock(&mutex_);
  return now_;
}

void ManualClock::Advance(absl::Duration by) {
  absl::MutexLock lock(&mutex_);
  now_ += by;
}

std::unique_ptr<SqliteStore> OpenTestStore(const std::string& path, ManualClock& clock,
                                           int connections) {
  SqliteOptions options;
  options.connections = connections;
  options.clock = clock.AsFunction();
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

}  // namespace verdict
