// The file `verdict login` keeps its admin session in (cli/session_file.h): for its owner only.
#include "cli/session_file.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace cli {
namespace {

using ::testing::HasSubstr;

std::string FreshDirectory(const std::string& name) {
  const std::string directory = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  mkdir(directory.c_str(), 0700);
  return directory;
}

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 0777;
}

const StoredSession kSession{.admin_addr = "unix:/run/verdict/admin.sock",
                             .token = "vas_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                             .session_id = "ses_0123456789abcdef",
                             .principal = "alice",
                             .expires_at = absl::FromUnixSeconds(1'800'003'600)};

TEST(SessionFileTest, TheSessionLivesUnderXdgConfigHomeElseHome) {
  const auto env = [](std::optional<std::string> xdg, std::optional<std::string> home) {
    return [=](const std::string& name) { return name == "XDG_CONFIG_HOME" ? xdg : home; };
  };
  EXPECT_EQ(SessionFilePath(env("/x/config", "/home/a")).value_or(""), "/x/config/verdict/session");
  EXPECT_EQ(SessionFilePath(env(std::nullopt, "/home/a")).value_or(""),
            "/home/a/.config/verdict/session");
  EXPECT_EQ(SessionFilePath(env("relative", "/home/a")).value_or(""),
            "/home/a/.config/verdict/session");
  EXPECT_FALSE(SessionFilePath(env(std::nullopt, std::nullopt)).ok());
}

TEST(SessionFileTest, ASessionIsWrittenForItsOwnerOnlyAndReadBack) {
  const std::string home = FreshDirectory("written");
  const std::string path = absl::StrCat(home, "/.config/verdict/session");
  ASSERT_TRUE(WriteSessionFile(path, kSession).ok());

  EXPECT_EQ(ModeOf(path), 0600);
  EXPECT_EQ(ModeOf(absl::StrCat(home, "/.config/verdict")), 0700);
  absl::StatusOr<std::optional<StoredSession>> read = ReadSessionFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ((*read)->admin_addr, kSession.admin_addr);
  EXPECT_EQ((*read)->token, kSession.token);
  EXPECT_EQ((*read)->session_id, kSession.session_id);
  EXPECT_EQ((*read)->principal, kSession.principal);
  EXPECT_EQ((*read)->expires_at, kSession.expires_at);

  ASSERT_TRUE(DeleteSessionFile(path).ok());
  EXPECT_FALSE(ReadSessionFile(path)->has_value());
  EXPECT_TRUE(DeleteSessionFile(path).ok()) << "nothing to delete is fine";
}

TEST(SessionFileTest, ADirectoryOthersMayReadIsRefusedWhenVerdictDidNotMakeIt) {
  const std::string directory = FreshDirectory("shared");
  ASSERT_EQ(chmod(directory.c_str(), 0755), 0);
  const absl::Status written = WriteSessionFile(absl::StrCat(directory, "/session"), kSession);
  EXPECT_EQ(written.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(written.message(), HasSubstr("other users"));
  EXPECT_FALSE(ReadSessionFile(absl::StrCat(directory, "/session"))->has_value());
}

TEST(SessionFileTest, AFileOthersMayReadIsNotUsed) {
  const std::string path = absl::StrCat(FreshDirectory("readable"), "/session");
  ASSERT_TRUE(WriteSessionFile(path, kSession).ok());
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  EXPECT_EQ(ReadSessionFile(path).status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace cli
}  // namespace verdict
