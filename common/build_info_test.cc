#include "common/build_info.h"

#include "absl/strings/str_cat.h"
#include "common/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace verdict {
namespace {

using ::testing::MatchesRegex;

TEST(BuildInfoTest, TheCommitIsAShortIdOrUnknown) {
  // A git checkout stamps its commit (with -dirty for uncommitted changes); a tree without git
  // says so instead of printing nothing.
  EXPECT_THAT(std::string(BuildCommit()), MatchesRegex("([0-9a-f]{7,40}(-dirty)?|unknown)"));
}

TEST(BuildInfoTest, TheVersionLineNamesProgramVersionAndCommit) {
  EXPECT_EQ(VersionLine("verdictd"),
            absl::StrCat("verdictd ", kVerdictVersion, " (commit ", BuildCommit(), ")\n"));
}

}  // namespace
}  // namespace verdict
