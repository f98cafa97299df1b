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

// The secret travels in a gRPC header, printable ASCII only: a secret with "ö" could be stored
// but never presented, and the CLI's gRPC library aborted printing it (review h41).
TEST(CheckAdminSecretTest, APrintableAsciiSecretOnly) {
  EXPECT_TRUE(CheckAdminSecret("a-long-enough-Secret_123!~").ok());
  for (const char* secret : {"L\xc3\xb6ngSecretNonAscii-123456", "secret-with-a-DEL\x7f-1234",
                             "secret-with-a-tab\tinside", "secret with a space inside"}) {
    const absl::Status status = CheckAdminSecret(secret);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << secret;
    EXPECT_EQ(status.message(),
              "the admin secret must be printable ASCII, without white space or control "
              "characters");
  }
}

}  // namespace
}  // namespace verdict
