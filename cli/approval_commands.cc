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
  if (int code = ReadPageOptions(session, request); code != kExitOk) return code;
  v1::ListApprovalsResponse response;
  int code = session.CallAdmin(&AdminStub::ListApprovals, request, &response);
  if (code == kExitOk) {
    session.PrintList(response, response.approvals(), response.next_page_token());
  }
  return code;
}

namespace {

// Approve and deny differ only in the method; each prints the approval request as it now is.
template <typename Request, typename Response>
int Vote(Session& session,
         grpc::Status (AdminStub::*method)(grpc::ClientContext*, const Request&, Response*)) {
  Request request;
  request.set_approval_id(session.options().Get("id"));
  request.set_approver(session.options().Get("approver"));
  Response response;
  int code = session.CallAdmin(method, request, &response);
  if (code == kExitOk) session.Print(response.approval());
  return code;
}

}  // namespace

int ApproveRequest(Session& session) { return Vote(session, &AdminStub::ApproveRequest); }

int DenyRequest(Session& session) { return Vote(session, &AdminStub::DenyRequest); }

}  // namespace cli
}  // namespace verdict
