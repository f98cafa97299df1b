// `verdict audit query`: the admin audit log (issue 18 item 4), who changed what, oldest first.
#include <google/protobuf/util/time_util.h>

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
  if (o.Has("since") && !ParseTimestamp(o.Get("since"), request.mutable_since())) {
    return session.UsageError("--since: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  if (o.Has("until") && !ParseTimestamp(o.Get("until"), request.mutable_until())) {
    return session.UsageError("--until: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  if (o.Has("since") && o.Has("until") && request.until() <= request.since()) {
    return session.UsageError("--until: must be later than --since");
  }
  uint32_t page_size = 0;
  if (!ParsePageSize(o, &page_size)) {
    return session.UsageError("--page_size: a number from 1 to 1000");
  }
  request.set_page_size(page_size);
  request.set_page_token(o.Get("page_token"));
  v1::QueryAdminAuditResponse response;
  int code = session.CallAdmin(&AdminStub::QueryAdminAudit, request, &response);
  if (code != kExitOk) return code;
  session.PrintList(response, response.entries(), response.next_page_token());
  return code;
}

}  // namespace cli
}  // namespace verdict
