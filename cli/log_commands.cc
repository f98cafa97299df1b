#include <google/protobuf/util/time_util.h>

#include "absl/strings/ascii.h"
#include "cli/commands.h"
#include "cli/option_values.h"
#include "proto/enum_names.h"

namespace verdict {
namespace cli {

namespace {

constexpr char kDecisionLoggingOff[] =
    "verdict: decision logging is off: this verdictd records no decisions (start it with "
    "--decision_log)\n";

}  // namespace

int QueryLog(Session& session) {
  const ParsedOptions& o = session.options();
  v1::QueryDecisionLogRequest request;
  request.set_agent_id(o.Get("agent"));
  if (o.Has("since") && !ParseTimestamp(o.Get("since"), request.mutable_since())) {
    return session.UsageError("--since: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  if (o.Has("until") && !ParseTimestamp(o.Get("until"), request.mutable_until())) {
    return session.UsageError("--until: an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  // Compared as timestamps: nanoseconds overflow after 2262 (h42).
  if (o.Has("since") && o.Has("until") && request.until() <= request.since()) {
    return session.UsageError("--until: must be later than --since");
  }
  if (o.Has("verdict")) {
    v1::Verdict verdict;
    if (!ParseShortEnumName(absl::AsciiStrToUpper(o.Get("verdict")), &verdict) ||
        verdict == v1::VERDICT_UNSPECIFIED) {
      return session.UsageError("--verdict: allow, deny or needs_approval");
    }
    request.set_verdict(verdict);
  }
  uint32_t page_size = 0;
  if (!ParsePageSize(o, &page_size))
    return session.UsageError("--page_size: a number from 1 to 1000");
  request.set_page_size(page_size);
  request.set_page_token(o.Get("page_token"));
  v1::QueryDecisionLogResponse response;
  int code = session.CallAdmin(&AdminStub::QueryDecisionLog, request, &response);
  if (code != kExitOk) return code;
  session.PrintList(response, response.entries(), response.next_page_token());
  // On stderr: the list on stdout stays what scripts parse.
  if (response.logging_off()) session.err() << kDecisionLoggingOff;
  return code;
}

int VerifyLog(Session& session) {
  v1::VerifyDecisionLogResponse response;
  int code =
      session.CallAdmin(&AdminStub::VerifyDecisionLog, v1::VerifyDecisionLogRequest(), &response);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    session.Print(response);
  } else if (response.logging_off() && response.intact() && response.rows_checked() == 0) {
    session.out() << "decision logging is off: nothing recorded, nothing to verify (start "
                     "verdictd with --decision_log)\n";
    return kExitOk;
  } else if (response.intact()) {
    session.out() << "intact: " << response.rows_checked() << " rows checked, " << response.runs()
                  << " runs (" << response.open_runs() << " open)\n";
  } else if (response.first_bad_seq() != 0) {
    session.out() << "broken at seq " << response.first_bad_seq() << ": " << response.problem()
                  << "\n";
  } else {
    // The chain holds; decisions are missing from runs (dropped, refused, or lost in a crash).
    session.out() << "gaps: " << response.gap_count() << " in " << response.runs() << " runs, "
                  << response.rows_checked() << " rows checked\n";
    for (const v1::DecisionLogGap& gap : response.gaps()) {
      session.out() << "  " << gap.problem() << "\n";
    }
  }
  if (response.logging_off()) session.err() << kDecisionLoggingOff;
  return response.intact() ? kExitOk : kExitNegative;
}

}  // namespace cli
}  // namespace verdict
