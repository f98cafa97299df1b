// `verdict log verify` and `verdict log query` against a verdictd that records no decisions (no
// --decision_log): they say that logging is off instead of reporting an empty, intact chain as
// if all were well; against one that records, they say nothing of the kind.
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/e2e_test_support.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/verdictd_process.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kSecret[] = "log-off-admin-secret-0123456789";

// Runs `verdict args... --admin_addr=unix:SOCKET` with the admin secret in the environment.
Outcome Verdict(const std::string& args, const std::string& socket) {
  return RunCommand(absl::StrCat("VERDICT_ADMIN_SECRET=", kSecret, " ", RunfilePath("cli/verdict"),
                                 " ", args, " --admin_addr=unix:", socket),
                    "cli-stderr.txt");
}

class DecisionLogOffTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(chdir(std::getenv("TEST_TMPDIR")), 0);
    std::ofstream("admin-secret") << kSecret << "\n";
  }

  // A verdictd on a fresh database `name`.db, admin socket `name`.sock; `extra` flags added.
  std::unique_ptr<VerdictdProcess> StartServer(const std::string& name,
                                               std::vector<std::string> extra) {
    std::vector<std::string> flags = {
        absl::StrCat("--db=", name, ".db"), absl::StrCat("--admin_listen=unix:", name, ".sock"),
        "--admin_secret_file=admin-secret", "--test_only_weak_admin_hash"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server = VerdictdProcess::Start(flags);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? *std::move(server) : nullptr;
  }
};

TEST_F(DecisionLogOffTest, VerifyAndQuerySayLoggingIsOff) {
  std::unique_ptr<VerdictdProcess> server = StartServer("off", {});
  ASSERT_NE(server, nullptr);

  const Outcome verify = Verdict("log verify", "off.sock");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  EXPECT_THAT(verify.out,
              StartsWith("decision logging is off: nothing recorded, nothing to verify (start "
                         "verdictd with --decision_log)\nadmin audit log: intact: "));
  // The decision log's line: the admin audit log's follows it.
  EXPECT_THAT(verify.out.substr(0, verify.out.find('\n')), Not(HasSubstr("intact")));

  const Outcome json = Verdict("log verify --json", "off.sock");
  EXPECT_THAT(json.out, HasSubstr("\"logging_off\":true"));

  const Outcome query = Verdict("log query", "off.sock");
  EXPECT_EQ(query.exit_code, 0) << query.err;
  EXPECT_THAT(query.err, HasSubstr("decision logging is off"));
}

TEST_F(DecisionLogOffTest, NothingIsSaidWhenLoggingIsOn) {
  std::unique_ptr<VerdictdProcess> server = StartServer("on", {"--decision_log"});
  ASSERT_NE(server, nullptr);

  const Outcome verify = Verdict("log verify", "on.sock");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  // The one row is the run's start marker: this verdictd logs, and no decision is missing.
  EXPECT_THAT(verify.out, StartsWith("intact: 1 rows checked, 1 runs (1 open)\n"));
  EXPECT_THAT(verify.err, Not(HasSubstr("off")));
  EXPECT_THAT(Verdict("log verify --json", "on.sock").out, HasSubstr("\"logging_off\":false"));
  EXPECT_THAT(Verdict("log query", "on.sock").err, Not(HasSubstr("logging is off")));
}

}  // namespace
}  // namespace verdict
