#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/option_values.h"

namespace verdict {
namespace cli {

int ExportPolicy(Session& session) {
  v1::ExportPolicyResponse response;
  int code = session.CallAdmin(&AdminStub::ExportPolicy, v1::ExportPolicyRequest(), &response);
  if (code != kExitOk) return code;
  const std::string& path = session.options().Get("out");
  if (path == "-") {
    session.out() << response.policy_json() << "\n";
    return kExitOk;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!(file << response.policy_json() << "\n")) {
    return session.UsageError(absl::StrCat("--out: cannot write ", path));
  }
  return kExitOk;
}

int ImportPolicy(Session& session) {
  v1::ImportPolicyRequest request;
  if (int code = ReadDocument(session, "file", request.mutable_policy_json()); code != kExitOk) {
    return code;
  }
  if (request.policy_json().size() > static_cast<size_t>(kMaxPolicyDocumentBytes)) {
    return session.UsageError(absl::StrCat("--file: ", request.policy_json().size(),
                                           " bytes, more than the ", kMaxPolicyDocumentBytes >> 20,
                                           " MiB a policy document may have"));
  }
  v1::ImportPolicyResponse response;
  int code = session.CallAdmin(&AdminStub::ImportPolicy, request, &response);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
  } else {
    // Zero counts too, which the text form would leave out.
    session.out() << "imported " << response.agents() << " agents, " << response.permissions()
                  << " permissions, " << response.delegations() << " delegations, "
                  << response.revoked_token_ids() << " revoked token ids\n";
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace verdict
