#include "server/admin_secret.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

std::string WriteFile(absl::string_view name, absl::string_view contents) {
  const std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(ReadAdminSecretFileTest, TakesTheSecretWithoutTheTrailingNewline) {
  absl::StatusOr<std::string> secret =
      ReadAdminSecretFile(WriteFile("secret", "  s3cret-s3cret-s3cret\n"));
  ASSERT_TRUE(secret.ok()) << secret.status();
  EXPECT_EQ(*secret, "s3cret-s3cret-s3cret");
}

TEST(ReadAdminSecretFileTest, RefusesWhatCannotBeAGoodSecret) {
  EXPECT_EQ(ReadAdminSecretFile("/nonexistent/secret").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ReadAdminSecretFile(WriteFile("short", "short\n")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadAdminSecretFile(WriteFile("empty", "\n")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadAdminSecretFile(WriteFile("two_words", "first-half-of it\n")).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace verdict
