// What a verdict binary was built from: the release version and the commit, stamped at build
// time by Bazel's workspace status (scripts/workspace-status.sh). Only the binaries link this:
// a new commit relinks them, not every library and test.
//
//   std::cout << VersionLine("verdictd");  // "verdictd 0.1.0 (commit 4b17ec500989)\n"
#ifndef VERDICT_COMMON_BUILD_INFO_H_
#define VERDICT_COMMON_BUILD_INFO_H_

#include <string>

#include "absl/strings/string_view.h"

namespace verdict {

// The short commit id ("4b17ec500989", "4b17ec500989-dirty" for uncommitted changes), or
// "unknown" when the tree was built without git.
absl::string_view BuildCommit();

// "PROGRAM VERSION (commit COMMIT)\n".
std::string VersionLine(absl::string_view program);

}  // namespace verdict

#endif  // VERDICT_COMMON_BUILD_INFO_H_
