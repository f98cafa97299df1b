// `verdict audit query`: the admin audit log (issue 18 item 4), who changed what, oldest first.
#include "cli/commands.h"
#include "cli/option_values.h"

namespace verdict {
namespace cli {

int QueryAudit(Session& session) {
  const ParsedOptions& o = session.options();
  v1::QueryAdminAuditRequest request;
  request.set_principal(o.Get("principal"));
  request.set_object_id(o.Get("object"));
  request.set_call(o.Get("call"));
  if (int code = ReadTimeWindow(session, request); code != kExitOk) return code;
  if (int code = ReadPageOptions(session, request); code != kExitOk) return code;
  v1::QueryAdminAuditResponse response;
  int code = session.CallAdmin(&AdminStub::QueryAdminAudit, request, &response);
  if (code != kExitOk) return code;
  session.PrintList(response, response.entries(), response.next_page_token());
  return code;
}

}  // namespace cli
}  // namespace verdict
