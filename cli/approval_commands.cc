#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/option_values.h"

namespace verdict {
namespace cli {

int ListApprovals(Session& session) {
  v1::ListApprovalsRequest request;
  v1::ApprovalStatus status;
  if (!v1::ApprovalStatus_Parse(
          absl::StrCat("APPROVAL_STATUS_", absl::AsciiStrToUpper(session.options().Get("status"))),
          &status) ||
      status == v1::APPROVAL_STATUS_UNSPECIFIED) {
    return session.UsageError("--status: pending, approved, denied, expired or used");
  }
  request.set_status(status);
  uint32_t page_size = 0;
  if (!ParsePageSize(session.options(), &page_size)) {
    return session.UsageError("--page_size: a number from 1 to 1000");
  }
  request.set_page_size(page_size);
  request.set_page_token(session.options().Get("page_token"));
  v1::ListApprovalsResponse response;
  int code = session.CallAdmin(&AdminStub::ListApprovals, request, &response);
  if (code == kExitOk) {
    session.PrintList(response, response.approvals(), response.next_page_token());
  }
  return code;
}

std::function<int(Session&)> Vote(grpc::Status (AdminStub::*method)(grpc::ClientContext*,
                                                                    const v1::VoteRequest&,
                                                                    v1::ApprovalRequest*)) {
  return [method](Session& session) {
    v1::VoteRequest request;
    request.set_approval_id(session.options().Get("id"));
    request.set_approver(session.options().Get("approver"));
    v1::ApprovalRequest response;
    int code = session.CallAdmin(method, request, &response);
    if (code == kExitOk) session.Print(response);
    return code;
  };
}

}  // namespace cli
}  // namespace verdict
