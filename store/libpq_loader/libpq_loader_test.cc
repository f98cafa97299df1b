// libpq, loaded as the PostgreSQL store loads it, in a binary that links verdict's allocator
// (tcmalloc): libpq's allocations and glibc's allocations made for libpq come from one allocator.
// Before the loader's shim, the first failed connection ended the process: libpq freed with
// glibc's free an error string glibc's strdup had allocated through tcmalloc.
#include <dlfcn.h>

#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_libpq.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// A port nothing listens on: every connection fails, which is the path that builds and frees
// libpq's error strings.
constexpr char kRefusedConnection[] = "host=127.0.0.1 port=1 connect_timeout=2 sslmode=prefer";

// Sanitizer builds load no libpq (postgres_libpq.cc) and keep their own allocator (.bazelrc).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VERDICT_SKIP_UNDER_SANITIZERS() GTEST_SKIP() << "no libpq and no tcmalloc in this build"
#else
#define VERDICT_SKIP_UNDER_SANITIZERS()
#endif

TEST(LibPqLoaderTest, FailedConnectionsFreeTheirMemoryWithTheProcessAllocator) {
  VERDICT_SKIP_UNDER_SANITIZERS();
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  // On several threads at once, as the store's pool connects.
  std::vector<std::thread> threads;
  std::vector<std::string> errors(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const char* keywords[] = {"dbname", nullptr};
        const char* values[] = {kRefusedConnection, nullptr};
        PGconn* connection = (*pq)->connectdbParams(keywords, values, /*expand_dbname=*/1);
        if (i == 0) errors[t] = (*pq)->errorMessage(connection);
        EXPECT_EQ((*pq)->status(connection), CONNECTION_BAD);
        (*pq)->finish(connection);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& error : errors) EXPECT_THAT(error, HasSubstr("127.0.0.1"));
}

TEST(LibPqLoaderTest, TheProcessAllocatorIsTcmalloc) {
  VERDICT_SKIP_UNDER_SANITIZERS();
  // The test above proves something only when the process's malloc is not glibc's.
  EXPECT_NE(dlsym(RTLD_DEFAULT, "tc_malloc"), nullptr);
}

}  // namespace
}  // namespace verdict
