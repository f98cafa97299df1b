#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cli/commands.h"
#include "cli/option_values.h"
#include "cli/output.h"
#include "proto/enum_names.h"

namespace verdict {
namespace cli {

namespace {

constexpr char kDecisionLoggingOff[] =
    "verdict: decision logging is off: this verdictd records no decisions (start it with "
    "--decision_log)\n";

// How often --follow asks for new rows, at most and at least.
constexpr absl::Duration kShortestInterval = absl::Milliseconds(100);
constexpr absl::Duration kLongestInterval = absl::Minutes(1);

// One row as --follow prints it in a table: the same columns on every line, so that rows
// printed minutes apart line up under the one header.
constexpr char kFollowHeader[] = "SEQ     DECIDED_AT                   VERDICT         REASON";
std::string FollowLine(const v1::DecisionLogEntry& entry) {
  const OutputValue row = OutputOf(entry);
  return absl::StrFormat("%-7s %-28s %-15s %-24s %s %s on %s", row.Find("seq")->scalar(),
                         row.Find("decided_at") ? row.Find("decided_at")->scalar() : "",
                         row.Find("verdict")->scalar(), row.Find("reason")->scalar(),
                         entry.agent_id(), entry.action(), entry.resource());
}

// Prints the rows `request` matches, then every new one as it is written, until interrupted
// (Ctrl-C). Asks again every --interval from the last row seen (the query's page token is the
// sequence number a page starts after); holds one page at a time.
int FollowLog(Session& session, v1::QueryDecisionLogRequest request) {
  absl::Duration interval;
  if (!absl::ParseDuration(session.options().Get("interval"), &interval) ||
      interval < kShortestInterval || interval > kLongestInterval) {
    return session.UsageError("--interval: a duration from 100ms to 1m, such as 1s");
  }
  const OutputFormat format = session.format();
  if (format == OutputFormat::kTable) session.out() << kFollowHeader << "\n";
  bool said_off = false;
  for (;;) {
    v1::QueryDecisionLogResponse response;
    int code = session.CallAdmin(&AdminStub::QueryDecisionLog, request, &response);
    if (code != kExitOk) return code;
    for (const v1::DecisionLogEntry& entry : response.entries()) {
      if (format == OutputFormat::kTable) {
        session.out() << FollowLine(entry) << "\n";
      } else {
        // One document per row: JSON Lines, or YAML documents.
        if (format == OutputFormat::kYaml) session.out() << "---\n";
        session.Print(entry);
      }
      request.set_page_token(absl::StrCat(entry.seq()));
    }
    session.out().flush();
    if (response.logging_off() && !said_off) {
      session.err() << kDecisionLoggingOff;
      said_off = true;
    }
    // A full page: more may be waiting already.
    if (!response.next_page_token().empty()) continue;
    absl::SleepFor(interval);
  }
}

}  // namespace

int QueryLog(Session& session) {
  const ParsedOptions& o = session.options();
  v1::QueryDecisionLogRequest request;
  request.set_agent_id(o.Get("agent"));
  if (int code = ReadTimeWindow(session, request); code != kExitOk) return code;
  if (o.Has("verdict")) {
    v1::Verdict verdict;
    if (!ParseShortEnumName(absl::AsciiStrToUpper(o.Get("verdict")), &verdict) ||
        verdict == v1::VERDICT_UNSPECIFIED) {
      return session.UsageError("--verdict: allow, deny or needs_approval");
    }
    request.set_verdict(verdict);
  }
  if (int code = ReadPageOptions(session, request); code != kExitOk) return code;
  if (o.Switch("follow")) return FollowLog(session, request);
  v1::QueryDecisionLogResponse response;
  int code = session.CallAdmin(&AdminStub::QueryDecisionLog, request, &response);
  if (code != kExitOk) return code;
  session.PrintList(response, response.entries(), response.next_page_token());
  // On stderr: the list on stdout stays what scripts parse.
  if (response.logging_off()) session.err() << kDecisionLoggingOff;
  return code;
}

namespace {

// The decision log's verdict on its chain, as a line (or lines, for gaps).
void PrintDecisionLog(Session& session, const v1::VerifyDecisionLogResponse& response) {
  if (response.logging_off() && response.intact() && response.rows_checked() == 0) {
    session.out() << "decision logging is off: nothing recorded, nothing to verify (start "
                     "verdictd with --decision_log)\n";
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
}

void PrintAdminAudit(Session& session, const v1::VerifyAdminAuditResponse& response) {
  session.out() << "admin audit log: ";
  if (response.intact()) {
    session.out() << "intact: " << response.rows_checked() << " rows checked";
    if (response.pruned_through_seq() != 0) {
      session.out() << " (rows up to " << response.pruned_through_seq() << " pruned)";
    }
    session.out() << "\n";
  } else {
    session.out() << "broken at seq " << response.first_bad_seq() << ": " << response.problem()
                  << "\n";
  }
}

}  // namespace

int VerifyLog(Session& session) {
  v1::VerifyDecisionLogResponse decisions;
  int code =
      session.CallAdmin(&AdminStub::VerifyDecisionLog, v1::VerifyDecisionLogRequest(), &decisions);
  if (code != kExitOk) return code;
  v1::VerifyAdminAuditResponse audit;
  code = session.CallAdmin(&AdminStub::VerifyAdminAudit, v1::VerifyAdminAuditRequest(), &audit);
  if (code != kExitOk) return code;
  if (session.format() != OutputFormat::kTable) {
    OutputValue both = OutputValue::Record();
    both.Add("decision_log", OutputOf(decisions)).Add("admin_audit", OutputOf(audit));
    session.out() << Render(both, session.format());
  } else {
    PrintDecisionLog(session, decisions);
    PrintAdminAudit(session, audit);
  }
  if (decisions.logging_off()) session.err() << kDecisionLoggingOff;
  return decisions.intact() && audit.intact() ? kExitOk : kExitNegative;
}

}  // namespace cli
}  // namespace verdict
