#include "common/build_info.h"

#include "absl/strings/str_cat.h"
#include "common/build_commit.inc"  // kStampedCommit, generated from the workspace status
#include "common/version.h"

namespace verdict {

absl::string_view BuildCommit() {
  absl::string_view commit = kStampedCommit;
  return commit.empty() ? "unknown" : commit;
}

std::string VersionLine(absl::string_view program) {
  return absl::StrCat(program, " ", kVerdictVersion, " (commit ", BuildCommit(), ")\n");
}

}  // namespace verdict
