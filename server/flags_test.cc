#include "server/flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

// A boolean flag for CheckCommandLineTest (verdictd's own live beside the parts they configure).
ABSL_FLAG(bool, test_switch, true, "A boolean flag for the tests.");

namespace verdict {
namespace {

using ::testing::ElementsAre;
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
  EXPECT_EQ(options->sqlite_mmap_mib, 2048);
  EXPECT_TRUE(options->sqlite_keep_read_lock);
}

TEST(ServerOptionsTest, FlagsReachTheOptions) {
  absl::FlagSaver restore_flags;
  absl::SetFlag(&FLAGS_listen, "unix:/run/verdict.sock");
  absl::SetFlag(&FLAGS_db, "/var/lib/verdict/verdict.db");
  absl::SetFlag(&FLAGS_seed, "deploy/demo-policy.json");
  absl::SetFlag(&FLAGS_workers, 8);
  absl::SetFlag(&FLAGS_sqlite_keep_read_lock, false);
  absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "unix:/run/verdict.sock");
  EXPECT_EQ(options->db_path, "/var/lib/verdict/verdict.db");
  EXPECT_EQ(options->seed_path, "deploy/demo-policy.json");
  EXPECT_EQ(options->workers, 8);
  EXPECT_FALSE(options->sqlite_keep_read_lock);
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
      {"negative memory map", [](ServerOptions& o) { o.sqlite_mmap_mib = -1; },
       "--sqlite_mmap_mib"},
      {"memory map beyond reason",
       [](ServerOptions& o) { o.sqlite_mmap_mib = kMaxSqliteMmapMib + 1; }, "--sqlite_mmap_mib"},
  };
  for (const Case& c : cases) {
    ServerOptions options = ValidOptions();
    c.spoil(options);
    const absl::Status status = ValidateServerOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.flag)) << c.name;
  }
}

TEST(ServerOptionsTest, TransportLimitFlagsReachTheOptions) {
  absl::FlagSaver restore_flags;
  absl::StatusOr<ServerOptions> defaults = ServerOptionsFromFlags();
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->max_memory_mib, 256);
  EXPECT_EQ(defaults->max_call_duration, absl::Minutes(5));
  EXPECT_EQ(defaults->max_connections, 100);
  absl::SetFlag(&FLAGS_max_memory_mib, 64);
  absl::SetFlag(&FLAGS_max_call_duration, absl::Seconds(30));
  absl::SetFlag(&FLAGS_max_connections, 10);
  absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->max_memory_mib, 64);
  EXPECT_EQ(options->max_call_duration, absl::Seconds(30));
  EXPECT_EQ(options->max_connections, 10);
}

TEST(ServerOptionsTest, BadTransportLimitsNameTheFlag) {
  struct Case {
    const char* name;
    void (*spoil)(ServerOptions&);
    const char* flag;
  };
  const Case cases[] = {
      {"memory below what an idle server holds", [](ServerOptions& o) { o.max_memory_mib = 15; },
       "--max_memory_mib"},
      {"memory beyond reason", [](ServerOptions& o) { o.max_memory_mib = kMaxMaxMemoryMib + 1; },
       "--max_memory_mib"},
      {"no time for a call",
       [](ServerOptions& o) { o.max_call_duration = absl::Milliseconds(999); },
       "--max_call_duration"},
      {"calls held for days", [](ServerOptions& o) { o.max_call_duration = absl::Hours(25); },
       "--max_call_duration"},
      {"no connection", [](ServerOptions& o) { o.max_connections = 0; }, "--max_connections"},
      {"connections beyond reason",
       [](ServerOptions& o) { o.max_connections = kMaxMaxConnections + 1; }, "--max_connections"},
  };
  for (const Case& c : cases) {
    ServerOptions options = ValidOptions();
    c.spoil(options);
    const absl::Status status = ValidateServerOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.flag)) << c.name;
  }
}

TEST(ServerOptionsTest, JwtFlagsReachTheOptions) {
  absl::FlagSaver restore_flags;
  absl::StatusOr<ServerOptions> defaults = ServerOptionsFromFlags();
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->jwt_issuer, "");  // JWT access tokens are off
  EXPECT_EQ(defaults->jwt_leeway, absl::Seconds(30));
  EXPECT_EQ(defaults->dpop_iat_window, absl::Seconds(60));
  EXPECT_THAT(defaults->jwt_algorithms, ElementsAre("EdDSA", "ES256", "HS256"));

  absl::SetFlag(&FLAGS_jwks_file, "/etc/verdict/jwks.json");
  absl::SetFlag(&FLAGS_jwt_issuer, "https://issuer.example");
  absl::SetFlag(&FLAGS_jwt_audience, "verdict");
  absl::SetFlag(&FLAGS_jwt_leeway, absl::Seconds(5));
  absl::SetFlag(&FLAGS_jwt_algorithms, "EdDSA, ES256");
  absl::SetFlag(&FLAGS_dpop_iat_window, absl::Seconds(20));
  absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->jwks_file, "/etc/verdict/jwks.json");
  EXPECT_EQ(options->jwt_issuer, "https://issuer.example");
  EXPECT_EQ(options->jwt_audience, "verdict");
  EXPECT_EQ(options->jwt_leeway, absl::Seconds(5));
  EXPECT_THAT(options->jwt_algorithms, ElementsAre("EdDSA", "ES256"));
  EXPECT_EQ(options->dpop_iat_window, absl::Seconds(20));
}

TEST(ServerOptionsTest, BadJwtOptionsNameTheFlag) {
  const struct {
    const char* name;
    void (*spoil)(ServerOptions&);
    const char* flag;
  } kCases[] = {
      {"issuer without audience", [](ServerOptions& o) { o.jwt_audience.clear(); },
       "--jwt_audience"},
      {"audience without issuer", [](ServerOptions& o) { o.jwt_issuer.clear(); }, "--jwt_issuer"},
      {"keys without issuer",
       [](ServerOptions& o) {
         o.jwt_issuer.clear();
         o.jwt_audience.clear();
       },
       "--jwks_file"},
      {"negative leeway", [](ServerOptions& o) { o.jwt_leeway = -absl::Seconds(1); },
       "--jwt_leeway"},
      {"leeway over an hour", [](ServerOptions& o) { o.jwt_leeway = absl::Minutes(61); },
       "--jwt_leeway"},
      {"no DPoP window", [](ServerOptions& o) { o.dpop_iat_window = absl::ZeroDuration(); },
       "--dpop_iat_window"},
      {"no algorithm", [](ServerOptions& o) { o.jwt_algorithms.clear(); }, "--jwt_algorithms"},
      {"alg none", [](ServerOptions& o) { o.jwt_algorithms = {"none"}; }, "--jwt_algorithms"},
      {"RS256",
       [](ServerOptions& o) {
         o.jwt_algorithms = {"EdDSA", "RS256"};
       },
       "--jwt_algorithms"},
  };
  for (const auto& c : kCases) {
    ServerOptions options = ValidOptions();
    options.jwks_file = "jwks.json";
    options.jwt_issuer = "https://issuer.example";
    options.jwt_audience = "verdict";
    ASSERT_TRUE(ValidateServerOptions(options).ok());
    c.spoil(options);
    const absl::Status status = ValidateServerOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.flag)) << c.name;
  }
}

// verdictd checks its command line itself, so that a bad flag is reported in its own log.
TEST(CheckCommandLineTest, KnownFlagsWithGoodValuesPassAndAreSet) {
  absl::FlagSaver restore_flags;
  EXPECT_TRUE(CheckCommandLine({"verdictd", "--workers=8", "-listen=127.0.0.1:0", "--test_switch",
                                "--seed", "policy.json", "--notest_switch", "--", "--junk"})
                  .ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_workers), 8);
  EXPECT_EQ(absl::GetFlag(FLAGS_seed), "policy.json");
  EXPECT_FALSE(absl::GetFlag(FLAGS_test_switch));
}

TEST(CheckCommandLineTest, AnUnknownFlagOrABadValueIsNamed) {
  absl::FlagSaver restore_flags;
  absl::Status unknown = CheckCommandLine({"verdictd", "--wrokers=8"});
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.message(), HasSubstr("unknown flag --wrokers"));
  absl::Status bad = CheckCommandLine({"verdictd", "--workers=many"});
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("--workers"));
  EXPECT_THAT(CheckCommandLine({"verdictd", "--seed"}).message(), HasSubstr("missing value"));
}

TEST(CheckCommandLineTest, TheLogFormatIsSetEvenAfterABadFlag) {
  absl::FlagSaver restore_flags;
  EXPECT_FALSE(CheckCommandLine({"verdictd", "--nope", "--log_format=json"}).ok());
  EXPECT_EQ(absl::GetFlag(FLAGS_log_format), "json");
}

TEST(RepeatedFlagValuesTest, CollectsEveryValueOfARepeatableFlagInOrder) {
  const std::vector<std::string> args = {"verdictd",
                                         "--db_read=postgresql://s1/verdict",
                                         "--db=postgresql://p/verdict",
                                         "-db_read",
                                         "postgresql://s2/verdict",
                                         "--db_readx=no",
                                         "--",
                                         "--db_read=postgresql://after-the-end"};
  EXPECT_EQ(RepeatedFlagValues(args, "db_read"),
            (std::vector<std::string>{"postgresql://s1/verdict", "postgresql://s2/verdict"}));
  EXPECT_TRUE(RepeatedFlagValues({"verdictd", "--db=x"}, "db_read").empty());
}

}  // namespace
}  // namespace verdict
