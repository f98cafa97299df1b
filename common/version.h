// verdict's release version, shared by verdictd, the `verdict` CLI and the metrics
// (verdict_build_info). The commit a binary was built from is in common/build_info.h.
#ifndef VERDICT_COMMON_VERSION_H_
#define VERDICT_COMMON_VERSION_H_

#include "absl/strings/string_view.h"

namespace verdict {

inline constexpr absl::string_view kVerdictVersion = "0.1.0";

}  // namespace verdict

#endif  // VERDICT_COMMON_VERSION_H_
