#include "decision/request_validation.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/redaction.h"
#include "crypto/token.h"
#include "decision/constraints.h"
#include "decision/path_escapes.h"
#include "decision/resource_match.h"
#include "decision/text_checks.h"

namespace verdict {
namespace {

// absl::ascii_isalnum is inline, so the fast checks below make no call per byte.
bool IsAgentIdCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
         c == '-';
}

bool IsPrintableAscii(char c) { return c >= 0x20 && c < 0x7f; }

// True when `text` is min_bytes..max_bytes bytes that `allowed` all accepts. The shared checkers
// (decision/text_checks.h) call through a function pointer per byte, and validate UTF-8 before
// they look for control characters; a well-formed field passes this one inlined pass instead,
// and only a field that fails it goes to them, to find and word what is wrong. Printable ASCII
// is valid UTF-8 free of control characters, so it passes CheckPrintableUtf8 as well.
// The predicate is a template argument so that the compiler inlines it.
template <bool (*allowed)(char)>
bool PlainlyWellFormed(absl::string_view text, size_t min_bytes, size_t max_bytes) {
  return text.size() >= min_bytes && text.size() <= max_bytes &&
         std::all_of(text.begin(), text.end(), [](char c) { return allowed(c); });
}

// Prefixes a status from a shared checker with the request field it was about.
absl::Status InField(absl::string_view field, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(field, ": ", status.message()));
}

// Whether `id` holds an agent token ("vdt_" and 43 base64url characters) or a compact JWS (a
// header, base64url of '{"', always starts "eyJ", then two more segments) anywhere in it. An
// agent id with dots ("agt_acme.billing.bot") is no JWS: none of its segments is a header.
// The cheap tests first: every Authorize by agent id passes here.
bool HoldsAToken(absl::string_view id) {
  for (size_t at = id.find(kAgentTokenPrefix); at != absl::string_view::npos;
       at = id.find(kAgentTokenPrefix, at + 1)) {
    if (id.size() - at >= kAgentTokenLength &&
        CheckAgentTokenShape(id.substr(at, kAgentTokenLength)).ok()) {
      return true;
    }
  }
  for (size_t at = id.find("eyJ"); at != absl::string_view::npos; at = id.find("eyJ", at + 1)) {
    const absl::string_view rest = id.substr(at);
    if (std::count(rest.begin(), rest.end(), '.') >= 2) return true;
  }
  return false;
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
  // A token pasted where an agent id belongs, alone or inside it ("agt_x:vdt_..."), would be
  // logged and echoed as an id (h41, h42).
  if (HoldsAToken(subject.agent_id)) {
    return absl::InvalidArgumentError(
        "subject.agent_id: holds a token (not repeated here); send it as subject.token");
  }
  return ValidateAgentId("subject.agent_id", subject.agent_id);
}

// The first control character in `text` (a C0 control, DEL, or a C1 control U+0080..U+009F,
// which UTF-8 writes as 0xC2 0x80..0x9F), as its code point; -1 when there is none.
int FirstControlCharacter(absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) return c;
    if (c == 0xc2 && i + 1 < text.size()) {
      const unsigned char next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9f) return next;
    }
  }
  return -1;
}

// One step from the arguments' root to a member: an object's key or an array's index.
struct PathStep {
  absl::string_view key;  // when is_key
  size_t index = 0;       // otherwise
  bool is_key = true;
};

// Where a member of the arguments is, for a message: "to", "options.mode", "cc[2]". Keys are
// escaped, and a token in one is never repeated (common/redaction.h). Built only for a refusal:
// an accepted call spends nothing on it.
std::string PathOf(const std::vector<PathStep>& steps) {
  std::string path;
  for (const PathStep& step : steps) {
    if (!step.is_key) {
      absl::StrAppend(&path, "[", step.index, "]");
      continue;
    }
    const std::string shown = RedactTokens(absl::CHexEscape(step.key));
    path = path.empty() ? shown : absl::StrCat(path, ".", shown);
  }
  return path;
}

// A string of the arguments, or a key, with a control character: argument rules compare whole
// values, and "*@example.com" would match "evil@evil.net\n@example.com" (issue 15). `steps` is
// the path to `value`, restored before returning.
absl::Status RefuseControlCharacters(const JsonValue& value, std::vector<PathStep>& steps) {
  const auto refused = [&steps](absl::string_view what, int code_point) {
    return absl::InvalidArgumentError(absl::StrCat(
        "arguments_json: ", what, " \"", PathOf(steps), "\" holds the control character U+",
        absl::AsciiStrToUpper(absl::StrCat(absl::Hex(code_point, absl::kZeroPad4))),
        "; argument strings carry none"));
  };
  if (value.is_string()) {
    const int control = FirstControlCharacter(value.as_string());
    return control < 0 ? absl::OkStatus() : refused("the string at", control);
  }
  if (value.is_array()) {
    for (size_t i = 0; i < value.as_array().size(); ++i) {
      steps.push_back({.index = i, .is_key = false});
      absl::Status status = RefuseControlCharacters(value.as_array()[i], steps);
      steps.pop_back();
      if (!status.ok()) return status;
    }
  } else if (value.is_object()) {
    for (const auto& [key, member] : value.as_object()) {
      steps.push_back({.key = key});
      absl::Status status = absl::OkStatus();
      if (const int control = FirstControlCharacter(key); control >= 0) {
        status = refused("the key", control);
      } else {
        status = RefuseControlCharacters(member, steps);
      }
      steps.pop_back();
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateArguments(absl::string_view arguments_json) {
  if (arguments_json.empty()) return absl::OkStatus();
  JsonLimits limits;
  limits.max_bytes = kMaxArgumentsBytes;
  limits.max_depth = kMaxArgumentsDepth;
  // Arguments key approvals by their canonical form and meet argument rules: two numbers that
  // read as one double would be one call to both (review h38).
  limits.exact_numbers = true;
  absl::StatusOr<JsonValue> arguments = ParseJson(arguments_json, limits);
  if (!arguments.ok()) return InField("arguments_json", arguments.status());
  if (!arguments->is_object()) {
    return absl::InvalidArgumentError("arguments_json: must be a JSON object");
  }
  std::vector<PathStep> steps;
  return RefuseControlCharacters(*arguments, steps);
}

absl::Status ValidateAgentId(absl::string_view field, absl::string_view id) {
  if (PlainlyWellFormed<IsAgentIdCharacter>(id, 1, kMaxIdLength)) return absl::OkStatus();
  return CheckAsciiCharset(field, id, 1, kMaxIdLength, IsAgentIdCharacter, "A-Z a-z 0-9 _ . : -");
}

// Cheapest checks first.
absl::Status ValidateSharedFields(const Request& request) {
  if (absl::Status status = ValidateSubject(request.subject); !status.ok()) return status;
  if (!request.client_ip.empty()) {
    if (absl::Status status = InField("client_ip", ParseIpAddress(request.client_ip).status());
        !status.ok()) {
      return status;
    }
  }
  if (!PlainlyWellFormed<IsPrintableAscii>(request.request_id, 0, kMaxRequestIdLength)) {
    return CheckAsciiCharset("request_id", request.request_id, 0, kMaxRequestIdLength,
                             IsPrintableAscii, "printable ASCII");
  }
  return absl::OkStatus();
}

// The arguments, the only field that needs parsing, come last.
absl::Status ValidateCheckFields(const Request& request) {
  if (absl::Status status = ValidateActionName(request.action); !status.ok()) return status;
  if (!PlainlyWellFormed<IsPrintableAscii>(request.resource, 1, kMaxResourceLength)) {
    absl::Status status = CheckPrintableUtf8("resource", request.resource, kMaxResourceLength);
    if (!status.ok()) return status;
  }
  // A path is matched as sent, so it must have one spelling, the one ext_authz lets through:
  // "/docs/7/../secret/1" must not pass a deny on "/docs/secret/**".
  // A colon resource likewise: "docs::secret:1" must not pass a deny on "docs:secret:*".
  if (absl::Status status = InField("resource", absl::StartsWith(request.resource, "/")
                                                    ? CheckMatchablePath(request.resource)
                                                    : CheckColonSegments(request.resource));
      !status.ok()) {
    return status;
  }
  return ValidateArguments(request.arguments_json);
}

absl::Status ValidateRequest(const Request& request) {
  if (absl::Status status = ValidateSharedFields(request); !status.ok()) return status;
  return ValidateCheckFields(request);
}

}  // namespace verdict
