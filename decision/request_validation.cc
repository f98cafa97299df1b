#include "decision/request_validation.h"

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "crypto/token.h"
#include "decision/constraints.h"
#include "decision/resource_match.h"
#include "decision/text_checks.h"

namespace verdict {
namespace {

bool IsAgentIdCharacter(char c) {
  return IsAsciiAlphanumeric(c) || c == '_' || c == '.' || c == ':' || c == '-';
}

bool IsPrintableAscii(char c) { return c >= 0x20 && c < 0x7f; }

// Prefixes a status from a shared checker with the request field it was about.
absl::Status InField(absl::string_view field, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(field, ": ", status.message()));
}

absl::Status ValidateSubject(const Subject& subject) {
  const bool has_agent_id = !subject.agent_id.empty();
  const bool has_token = !subject.token.empty();
  if (has_agent_id && has_token) {
    return absl::InvalidArgumentError("subject: set exactly one of agent_id and token, not both");
  }
  if (!has_agent_id && !has_token) {
    return absl::InvalidArgumentError("subject: set one of agent_id and token");
  }
  if (has_token) {
    return InField("subject.token", LooksLikeCompactJws(subject.token)
                                        ? CheckCompactJwsShape(subject.token)
                                        : CheckAgentTokenShape(subject.token));
  }
  return CheckAsciiCharset("subject.agent_id", subject.agent_id, 1, kMaxIdLength,
                           IsAgentIdCharacter, "A-Z a-z 0-9 _ . : -");
}

absl::Status ValidateArguments(absl::string_view arguments_json) {
  if (arguments_json.empty()) return absl::OkStatus();
  JsonLimits limits;
  limits.max_bytes = kMaxArgumentsBytes;
  limits.max_depth = kMaxArgumentsDepth;
  absl::StatusOr<JsonValue> arguments = ParseJson(arguments_json, limits);
  if (!arguments.ok()) return InField("arguments_json", arguments.status());
  if (!arguments->is_object()) {
    return absl::InvalidArgumentError("arguments_json: must be a JSON object");
  }
  return absl::OkStatus();
}

}  // namespace

// Cheapest checks first; the arguments, the only field that needs parsing, come last.
absl::Status ValidateRequest(const Request& request) {
  if (absl::Status status = ValidateSubject(request.subject); !status.ok()) return status;
  if (absl::Status status = ValidateActionName(request.action); !status.ok()) return status;
  if (absl::Status status = CheckPrintableUtf8("resource", request.resource, kMaxResourceLength);
      !status.ok()) {
    return status;
  }
  if (!request.client_ip.empty()) {
    if (absl::Status status = InField("client_ip", ParseIpAddress(request.client_ip).status());
        !status.ok()) {
      return status;
    }
  }
  if (absl::Status status =
          CheckAsciiCharset("request_id", request.request_id, 0, kMaxRequestIdLength,
                            IsPrintableAscii, "printable ASCII");
      !status.ok()) {
    return status;
  }
  return ValidateArguments(request.arguments_json);
}

}  // namespace verdict
