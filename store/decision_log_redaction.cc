#include "store/decision_log_redaction.h"

#include <cctype>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"

namespace verdict {
namespace {

// Substrings of a normalised key that mark a secret. Over-redacting a harmless key costs a log
// reader a value; under-redacting leaks a credential into an append-only table.
constexpr absl::string_view kSecretMarkers[] = {
    "token",  "secret", "password",   "passwd",     "passphrase", "authorization",
    "cookie", "apikey", "privatekey", "credential", "sessionid",  "jwt",
};

std::string NormaliseKey(absl::string_view key) {
  std::string normalised;
  normalised.reserve(key.size());
  for (char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      normalised.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return normalised;
}

void RedactInPlace(JsonValue& value) {
  if (value.is_array()) {
    for (JsonValue& item : value.as_array()) RedactInPlace(item);
  } else if (value.is_object()) {
    for (auto& [key, member] : value.as_object()) {
      if (IsSecretKey(key)) {
        member = JsonValue::String(std::string(kRedactedValue));
      } else {
        RedactInPlace(member);
      }
    }
  }
}

}  // namespace

bool IsSecretKey(absl::string_view key) {
  const std::string normalised = NormaliseKey(key);
  for (absl::string_view marker : kSecretMarkers) {
    if (absl::StrContains(normalised, marker)) return true;
  }
  return false;
}

std::string RedactSecrets(absl::string_view arguments_json) {
  if (arguments_json.empty()) return "{}";
  absl::StatusOr<JsonValue> arguments = ParseJson(arguments_json);
  if (!arguments.ok()) return JsonQuote(kRedactedValue);
  RedactInPlace(*arguments);
  return CanonicalJson(*arguments);
}

std::string RedactOccurrences(absl::string_view text, absl::string_view secret) {
  if (secret.empty()) return std::string(text);
  return absl::StrReplaceAll(text, {{secret, kRedactedValue}});
}

}  // namespace verdict
