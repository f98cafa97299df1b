#include "store/decision_log_row.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/redaction.h"

namespace verdict {
namespace {

constexpr absl::string_view kHopKeys[] = {"delegation_id", "from_agent_id", "to_agent_id"};

JsonValue Integer(int64_t n) { return ChainInteger(n); }

}  // namespace

DecisionLogRow MakeDecisionLogRow(const Request& request, const Decision& decision,
                                  absl::Duration latency, absl::Time decided_at) {
  DecisionLogRow row;
  row.decided_at_us = absl::ToUnixMicros(decided_at);
  // What the caller wrote is kept, but never a token it wrote there (common/redaction.h).
  row.request_id = RedactTokens(request.request_id);
  row.agent_id = decision.agent_id;
  row.action = RedactTokens(request.action);
  row.resource = RedactTokens(request.resource);
  row.client_ip = request.client_ip;
  row.arguments_json = RedactSecrets(request.arguments_json);
  row.verdict = VerdictName(decision.verdict);
  row.reason = ReasonCodeName(decision.reason);
  // A message may quote the resource, never the subject's token; neither is kept.
  row.message = RedactTokens(RedactOccurrences(decision.message, request.subject.token));
  if (decision.matched_grant) row.matched_permission_id = decision.matched_grant->permission_id;
  row.delegation_path_json = DelegationPathToJson(decision.delegation_path);
  row.approval_request_id = decision.approval_request_id;
  row.approved_by_json = ApprovedByToJson(decision.approved_by);
  row.latency_us = absl::ToInt64Microseconds(latency);
  return row;
}

std::string ChainHash(const DecisionLogRow& row) {
  JsonValue::Object fields;
  fields.emplace("seq", Integer(row.seq));
  fields.emplace("decided_at_us", Integer(row.decided_at_us));
  fields.emplace("request_id", JsonValue::String(row.request_id));
  fields.emplace("agent_id", JsonValue::String(row.agent_id));
  fields.emplace("action", JsonValue::String(row.action));
  fields.emplace("resource", JsonValue::String(row.resource));
  fields.emplace("client_ip", JsonValue::String(row.client_ip));
  fields.emplace("arguments_json", JsonValue::String(row.arguments_json));
  fields.emplace("verdict", JsonValue::String(row.verdict));
  fields.emplace("reason", JsonValue::String(row.reason));
  fields.emplace("message", JsonValue::String(row.message));
  fields.emplace("matched_permission_id", JsonValue::String(row.matched_permission_id));
  fields.emplace("delegation_path_json", JsonValue::String(row.delegation_path_json));
  fields.emplace("approval_request_id", JsonValue::String(row.approval_request_id));
  fields.emplace("latency_us", Integer(row.latency_us));
  fields.emplace("prev_hash", JsonValue::String(row.prev_hash));
  if (!row.run_id.empty()) {
    fields.emplace("run_id", JsonValue::String(row.run_id));
    fields.emplace("run_seq", Integer(row.run_seq));
    fields.emplace("run_decided", Integer(row.run_decided));
  }
  if (!row.approved_by_json.empty()) {
    fields.emplace("approved_by", JsonValue::String(row.approved_by_json));
  }
  return ChainHashOfFields(std::move(fields));
}

bool IsRunMarker(const DecisionLogRow& row) {
  return row.verdict.empty() && (row.reason == kRunStartReason || row.reason == kRunStopReason);
}

DecisionLogRow MakeRunStartRow(absl::string_view run_id, const RunOrigin& origin, absl::Time at) {
  DecisionLogRow row;
  row.decided_at_us = absl::ToUnixMicros(at);
  row.reason = kRunStartReason;
  JsonValue::Object fields;
  fields.emplace("host", JsonValue::String(origin.host));
  fields.emplace("pid", Integer(origin.pid));
  fields.emplace("durability", JsonValue::String(origin.durability));
  row.arguments_json = CanonicalJson(JsonValue::MakeObject(std::move(fields)));
  row.message = absl::StrCat("decision log run started: pid ", origin.pid, " on ", origin.host,
                             ", durability ", origin.durability);
  row.delegation_path_json = "[]";
  row.run_id = std::string(run_id);
  return row;
}

DecisionLogRow MakeRunStopRow(absl::string_view run_id, int64_t last_run_seq, absl::Time at) {
  DecisionLogRow row;
  row.decided_at_us = absl::ToUnixMicros(at);
  row.reason = kRunStopReason;
  row.arguments_json = "{}";
  row.message = absl::StrCat("decision log run stopped after decision ", last_run_seq);
  row.delegation_path_json = "[]";
  row.run_id = std::string(run_id);
  row.run_seq = last_run_seq;
  row.run_decided = last_run_seq;
  return row;
}

absl::StatusOr<RunOrigin> RunOriginOf(const DecisionLogRow& row) {
  if (row.reason != kRunStartReason || !row.verdict.empty()) {
    return absl::InvalidArgumentError("not a decision log run's start marker");
  }
  absl::StatusOr<JsonValue> parsed = ParseJson(row.arguments_json);
  if (!parsed.ok()) return parsed.status();
  const JsonValue* host = parsed->Find("host");
  const JsonValue* pid = parsed->Find("pid");
  const JsonValue* durability = parsed->Find("durability");
  if (host == nullptr || !host->is_string() || pid == nullptr || !pid->is_number() ||
      durability == nullptr || !durability->is_string()) {
    return absl::InvalidArgumentError("a start marker lacks its host, pid or durability");
  }
  return RunOrigin{host->as_string(), static_cast<int64_t>(pid->as_number()),
                   durability->as_string()};
}

void ChainRows(int64_t first_seq, absl::string_view previous_hash,
               std::vector<DecisionLogRow>& rows) {
  ChainRows(first_seq, previous_hash, rows,
            [](const DecisionLogRow& row) { return ChainHash(row); });
}

std::string ApprovedByToJson(const std::vector<std::string>& approvers) {
  if (approvers.empty()) return "";
  JsonValue::Array names;
  names.reserve(approvers.size());
  for (const std::string& name : approvers) names.push_back(JsonValue::String(name));
  return CanonicalJson(JsonValue::MakeArray(std::move(names)));
}

absl::StatusOr<std::vector<std::string>> ApprovedByFromJson(absl::string_view json) {
  std::vector<std::string> approvers;
  if (json.empty()) return approvers;
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_array()) return absl::InvalidArgumentError("approved_by is not a JSON array");
  for (const JsonValue& name : parsed->as_array()) {
    if (!name.is_string()) {
      return absl::InvalidArgumentError("approved_by holds a value that is not a name");
    }
    approvers.push_back(name.as_string());
  }
  return approvers;
}

std::string DelegationPathToJson(const std::vector<DelegationHop>& path) {
  JsonValue::Array hops;
  hops.reserve(path.size());
  for (const DelegationHop& hop : path) {
    const std::string* values[] = {&hop.delegation_id, &hop.from_agent_id, &hop.to_agent_id};
    JsonValue::Object object;
    for (size_t i = 0; i < std::size(kHopKeys); ++i) {
      object.emplace(std::string(kHopKeys[i]), JsonValue::String(*values[i]));
    }
    hops.push_back(JsonValue::MakeObject(std::move(object)));
  }
  return CanonicalJson(JsonValue::MakeArray(std::move(hops)));
}

absl::StatusOr<std::vector<DelegationHop>> DelegationPathFromJson(absl::string_view json) {
  absl::StatusOr<JsonValue> parsed = ParseJson(json);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_array()) {
    return absl::InvalidArgumentError("delegation path: expected a JSON array");
  }
  std::vector<DelegationHop> path;
  for (const JsonValue& item : parsed->as_array()) {
    DelegationHop hop;
    std::string* values[] = {&hop.delegation_id, &hop.from_agent_id, &hop.to_agent_id};
    for (size_t i = 0; i < std::size(kHopKeys); ++i) {
      const JsonValue* value = item.Find(kHopKeys[i]);
      if (value == nullptr || !value->is_string()) {
        return absl::InvalidArgumentError(
            absl::StrCat("delegation path: a hop lacks the string \"", kHopKeys[i], "\""));
      }
      *values[i] = value->as_string();
    }
    path.push_back(std::move(hop));
  }
  return path;
}

}  // namespace verdict
