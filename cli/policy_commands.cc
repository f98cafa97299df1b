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

// Policy as code (issue 19): the file is sent whole and parsed by verdictd, so a running server
// and the CLI can never read one file two ways.
namespace {

int SendPolicyFile(Session& session, bool dry_run) {
  v1::ApplyPolicyRequest request;
  if (int code = ReadDocument(session, "file", request.mutable_file_text()); code != kExitOk) {
    return code;
  }
  const std::string& path = session.options().Get("file");
  request.set_file_name(path == "-" ? "stdin" : path);
  request.set_dry_run(dry_run);
  v1::ApplyPolicyResponse response;
  int code = session.CallAdmin(&AdminStub::ApplyPolicy, request, &response);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
    return kExitOk;
  }
  session.out() << response.plan_text();
  if (response.applied()) {
    session.out() << "applied policy \"" << response.policy_name() << "\" (sha256 "
                  << response.file_sha256() << ")\n";
  }
  return kExitOk;
}

}  // namespace

int ApplyPolicy(Session& session) {
  return SendPolicyFile(session, session.options().Switch("dry-run"));
}

int DiffPolicy(Session& session) { return SendPolicyFile(session, /*dry_run=*/true); }

}  // namespace cli
}  // namespace verdict
