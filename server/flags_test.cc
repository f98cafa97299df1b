#include "server/flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

ServerOptions ValidOptions() {
  ServerOptions options;
  options.listen = "127.0.0.1:50051";
  options.db_path = "verdict.db";
  return options;
}

TEST(ServerOptionsTest, DefaultsServeLoopbackFromALocalFile) {
  absl::FlagSaver restore_flags;
  absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "127.0.0.1:50051");
  EXPECT_EQ(options->db_path, "./verdict.db");
  EXPECT_EQ(options->seed_path, "");
  EXPECT_EQ(options->workers, 4);
}

TEST(ServerOptionsTest, FlagsReachTheOptions) {
  absl::FlagSaver restore_flags;
  absl::SetFlag(&FLAGS_listen, "unix:/run/verdict.sock");
  absl::SetFlag(&FLAGS_db, "/var/lib/verdict/verdict.db");
  absl::SetFlag(&FLAGS_seed, "deploy/demo-policy.json");
  absl::SetFlag(&FLAGS_workers, 8);
  absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "unix:/run/verdict.sock");
  EXPECT_EQ(options->db_path, "/var/lib/verdict/verdict.db");
  EXPECT_EQ(options->seed_path, "deploy/demo-policy.json");
  EXPECT_EQ(options->workers, 8);
}

TEST(ServerOptionsTest, ListenAcceptsHostPortAndUnixSockets) {
  for (const char* listen : {"127.0.0.1:50051", "0.0.0.0:0", "[::1]:8080", "localhost:65535",
                             "unix:/tmp/v.sock", "unix:relative.sock"}) {
    ServerOptions options = ValidOptions();
    options.listen = listen;
    EXPECT_TRUE(ValidateServerOptions(options).ok()) << listen;
  }
}

TEST(ServerOptionsTest, BadOptionsNameTheFlag) {
  struct Case {
    const char* name;
    void (*spoil)(ServerOptions&);
    const char* flag;
  };
  const Case cases[] = {
      {"no port", [](ServerOptions& o) { o.listen = "127.0.0.1"; }, "--listen"},
      {"port too big", [](ServerOptions& o) { o.listen = "127.0.0.1:65536"; }, "--listen"},
      {"port not a number", [](ServerOptions& o) { o.listen = "127.0.0.1:http"; }, "--listen"},
      {"no host", [](ServerOptions& o) { o.listen = ":50051"; }, "--listen"},
      {"unix without path", [](ServerOptions& o) { o.listen = "unix:"; }, "--listen"},
      {"empty listen", [](ServerOptions& o) { o.listen = ""; }, "--listen"},
      {"empty db", [](ServerOptions& o) { o.db_path = ""; }, "--db"},
      {"zero workers", [](ServerOptions& o) { o.workers = 0; }, "--workers"},
      {"too many workers", [](ServerOptions& o) { o.workers = kMaxWorkers + 1; }, "--workers"},
  };
  for (const Case& c : cases) {
    ServerOptions options = ValidOptions();
    c.spoil(options);
    const absl::Status status = ValidateServerOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.flag)) << c.name;
  }
}

}  // namespace
}  // namespace verdict
