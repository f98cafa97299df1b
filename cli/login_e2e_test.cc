// `verdict login` and `verdict logout` against a real verdictd: the session is kept in a 0600
// file, later commands use it with no secret, logout ends it; --admin_addr defaults from
// VERDICT_ADMIN_ADDR.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
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

constexpr char kSecret[] = "login-e2e-admin-secret-0123456789";
constexpr char kAdminSocket[] = "unix:login-admin.sock";  // relative: TEST_TMPDIR is the cwd

class LoginTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(chdir(std::getenv("TEST_TMPDIR")), 0);
    std::ofstream("login-secret") << kSecret << "\n";
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> server =
        VerdictdProcess::Start({"--db=login.db", absl::StrCat("--admin_listen=", kAdminSocket),
                                "--admin_secret_file=login-secret", "--test_only_weak_admin_hash"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
  }

  static void TearDownTestSuite() {
    if (server_ == nullptr) return;
    server_->Signal(SIGTERM);
    EXPECT_TRUE(server_->AwaitExit(absl::Seconds(20)).ok());
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    config_ = absl::StrCat(std::getenv("TEST_TMPDIR"), "/",
                           testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // Runs `[stdin |] env... verdict args...` with XDG_CONFIG_HOME set to this test's own
  // directory, VERDICT_ADMIN_SECRET and VERDICT_ADMIN_ADDR unset unless `env` sets them.
  Outcome Verdict(const std::vector<std::string>& args, const std::string& env = "",
                  const std::string& stdin_text = "") {
    const std::string command = absl::StrCat(
        "unset VERDICT_ADMIN_SECRET VERDICT_ADMIN_ADDR; printf %s ", ShellQuote(stdin_text),
        " | XDG_CONFIG_HOME=", ShellQuote(config_), " ", env, " ", VerdictCommandLine(args));
    return RunCommand(command, "cli-stderr.txt");
  }

  std::string SessionFile() const { return absl::StrCat(config_, "/verdict/session"); }

  static std::string WithSecret() { return absl::StrCat("VERDICT_ADMIN_SECRET=", kSecret); }
  static std::string WithAddress(absl::string_view address = kAdminSocket) {
    return absl::StrCat("VERDICT_ADMIN_ADDR=", address);
  }

  std::string config_;
  static VerdictdProcess* server_;
};

VerdictdProcess* LoginTest::server_ = nullptr;

TEST_F(LoginTest, LoginKeepsASessionInA0600FileThatLaterCommandsUseWithoutTheSecret) {
  const Outcome login =
      Verdict({"login", absl::StrCat("--admin_addr=", kAdminSocket)}, WithSecret());
  ASSERT_EQ(login.exit_code, 0) << login.err;
  EXPECT_THAT(login.out, HasSubstr("logged in to unix:login-admin.sock as admin"));

  struct stat info {};
  ASSERT_EQ(stat(SessionFile().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  const std::string kept = ReadFile(SessionFile());
  EXPECT_THAT(kept, HasSubstr("token=vas_"));
  EXPECT_THAT(login.out + login.err, Not(HasSubstr("vas_"))) << "the token is shown nowhere";

  // No secret anywhere: the stored session authenticates (verdictd maps no uid here).
  const Outcome created =
      Verdict({"agents", "create", "--owner=ops", "--name=bot", "--admin_addr", kAdminSocket});
  EXPECT_EQ(created.exit_code, 0) << created.err;

  const Outcome logout = Verdict({"logout"});
  EXPECT_EQ(logout.exit_code, 0) << logout.err;
  EXPECT_NE(stat(SessionFile().c_str(), &info), 0) << "the file is gone";
  const Outcome after = Verdict({"agents", "list", "--admin_addr", kAdminSocket});
  EXPECT_EQ(after.exit_code, 4);
  EXPECT_THAT(after.err, HasSubstr("verdict login"));
}

TEST_F(LoginTest, LogoutRevokesTheSessionOnTheServer) {
  ASSERT_EQ(Verdict({"login"}, absl::StrCat(WithSecret(), " ", WithAddress())).exit_code, 0);
  const std::string kept = ReadFile(SessionFile());
  ASSERT_EQ(Verdict({"logout"}).exit_code, 0);

  // The same token, put back by hand, is refused: the session ended on the server.
  std::ofstream(SessionFile()) << kept;
  ASSERT_EQ(chmod(SessionFile().c_str(), 0600), 0);
  const Outcome reused = Verdict({"agents", "list"}, WithAddress());
  EXPECT_EQ(reused.exit_code, 4);
  EXPECT_THAT(reused.err, HasSubstr("log in again"));
}

TEST_F(LoginTest, LoginReadsTheSecretFromStandardInput) {
  const Outcome login = Verdict({"login", "--ttl=10m"}, WithAddress(), absl::StrCat(kSecret, "\n"));
  ASSERT_EQ(login.exit_code, 0) << login.err;
  EXPECT_EQ(Verdict({"agents", "list"}, WithAddress()).exit_code, 0);
  EXPECT_EQ(Verdict({"logout"}).exit_code, 0);

  const Outcome wrong = Verdict({"login"}, WithAddress(), "not-the-admin-secret-at-all\n");
  EXPECT_EQ(wrong.exit_code, 4);
  EXPECT_NE(access(SessionFile().c_str(), F_OK), 0) << "nothing kept for a refused login";
}

TEST_F(LoginTest, AdminAddrDefaultsFromVerdictAdminAddrAndTheFlagWins) {
  EXPECT_EQ(Verdict({"agents", "list"}, absl::StrCat(WithSecret(), " ", WithAddress())).exit_code,
            0);
  const Outcome elsewhere =
      Verdict({"agents", "list", "--timeout=2s"},
              absl::StrCat(WithSecret(), " ", WithAddress("unix:no-such.sock")));
  EXPECT_EQ(elsewhere.exit_code, 4) << "the environment's address was the one tried";
  EXPECT_EQ(Verdict({"agents", "list", "--admin_addr", kAdminSocket},
                    absl::StrCat(WithSecret(), " ", WithAddress("unix:no-such.sock")))
                .exit_code,
            0);
}

}  // namespace
}  // namespace verdict
