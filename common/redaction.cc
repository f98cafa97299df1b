#include "common/redaction.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"

namespace verdict {
namespace {

// Substrings of a normalised key that mark a secret. Over-redacting a harmless key costs a log
// reader a value; under-redacting leaks a credential into an append-only table.
constexpr absl::string_view kSecretMarkers[] = {
    "token",  "secret", "password",   "passwd",     "passphrase", "authorization",
    "cookie", "apikey", "privatekey", "credential", "sessionid",  "jwt",
    "pwd",    "bearer", "accesskey",  "signature",  "passcode",   "pincode",
};

// Text inside any string value that marks a credential, whatever the key: a credential in a
// query string (any parameter whose name ends so: "?token=", "&access_token=", "?apikey=",
// "?X-Amz-Signature=", an OAuth "?code="), verdict's agent token prefix and its admin session
// token prefix (compared lower-cased).
constexpr absl::string_view kCredentialMarkers[] = {
    "token=",  "key=", "sig=",  "signature=",  "secret=", "password=",
    "passwd=", "pwd=", "code=", "credential=", "vdt_",    "vas_",
};

// Authorization schemes (RFC 9110 section 11.4), followed by a credential.
constexpr absl::string_view kAuthorizationSchemes[] = {"bearer", "dpop", "basic"};

bool IsCredentialCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
         c == '~' || c == '+' || c == '/' || c == '=';
}

// "Bearer <credential>" at a word's start, the credential at least 8 characters of token68
// (RFC 9110) with one that is not a letter: "Basic dXNlcg==" is one, "basic income" is not.
bool HoldsAnAuthorizationCredential(absl::string_view text, absl::string_view lower) {
  for (absl::string_view scheme : kAuthorizationSchemes) {
    for (size_t at = lower.find(scheme); at != absl::string_view::npos;
         at = lower.find(scheme, at + 1)) {
      size_t start = at + scheme.size();
      const bool word_start = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
      // One or more spaces or tabs, as servers read the header.
      const size_t blanks_from = start;
      while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
      if (!word_start || start == blanks_from) continue;
      size_t end = start;
      bool beyond_letters = false;
      while (end < text.size() && IsCredentialCharacter(text[end])) {
        beyond_letters |= !std::isalpha(static_cast<unsigned char>(text[end]));
        ++end;
      }
      if (end - start >= 8 && beyond_letters) return true;
    }
  }
  return false;
}

bool IsBase64UrlCharacter(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// A compact JWS: "eyJ" (a base64url JSON object) and two more base64url segments after dots.
bool HoldsACompactJws(absl::string_view text) {
  for (size_t at = text.find("eyJ"); at != absl::string_view::npos; at = text.find("eyJ", at + 1)) {
    size_t i = at;
    int dots = 0;
    while (i < text.size() && (IsBase64UrlCharacter(text[i]) || (text[i] == '.' && dots < 2))) {
      if (text[i] == '.') ++dots;
      ++i;
    }
    if (dots == 2 && IsBase64UrlCharacter(text[i - 1])) return true;
  }
  return false;
}

// A URL with a password in it: "scheme://user:password@host".
bool HoldsUrlUserinfo(absl::string_view text) {
  for (size_t at = text.find("://"); at != absl::string_view::npos; at = text.find("://", at + 1)) {
    const absl::string_view rest = text.substr(at + 3);
    const absl::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    const size_t sign = authority.rfind('@');
    if (sign != absl::string_view::npos &&
        authority.substr(0, sign).find(':') != absl::string_view::npos) {
      return true;
    }
  }
  return false;
}

// {"name": "DB_PASSWORD", "value": "..."}: a secret named by a sibling, as environment
// variables and headers are often listed.
bool NamesASecret(const JsonValue::Object& object) {
  for (absl::string_view naming : {"name", "key", "header"}) {
    auto it = object.find(std::string(naming));
    if (it != object.end() && it->second.is_string() && IsSecretKey(it->second.as_string())) {
      return true;
    }
  }
  return false;
}

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

// The characters a verdict agent token's display prefix shows after "vdt_" (crypto/token.h,
// kTokenDisplayPrefixLength): any more of a token is a secret.
constexpr size_t kShownTokenCharacters = 8;
constexpr absl::string_view kAgentTokenMarker = "vdt_";
constexpr absl::string_view kJwsMarker = "eyJ";

// Where the next "vdt_" (in any case) starts at or after `from`, or npos.
size_t NextAgentTokenStart(absl::string_view text, size_t from) {
  size_t underscore = text.find('_', from + kAgentTokenMarker.size() - 1);
  while (underscore != absl::string_view::npos &&
         !absl::EqualsIgnoreCase(
             text.substr(underscore + 1 - kAgentTokenMarker.size(), kAgentTokenMarker.size()),
             kAgentTokenMarker)) {
    underscore = text.find('_', underscore + 1);
  }
  return underscore == absl::string_view::npos ? absl::string_view::npos
                                               : underscore + 1 - kAgentTokenMarker.size();
}

// The length of the agent token that starts at `at` (at "vdt_"), or 0 when it is no longer
// than the display prefix. A run that is not a token is that short, so looking costs O(1).
size_t AgentTokenRunAt(absl::string_view text, size_t at) {
  size_t end = at + kAgentTokenMarker.size();
  while (end < text.size() && IsBase64UrlCharacter(text[end])) ++end;
  return end - at > kAgentTokenMarker.size() + kShownTokenCharacters ? end - at : 0;
}

// The length of the compact JWS that starts at `at` (at "eyJ"), or 0 when its run of base64url
// characters and dots holds fewer than two dots; `*run_end` is where that run ends either way.
size_t JwsRunAt(absl::string_view text, size_t at, size_t* run_end) {
  size_t end = at;
  int dots = 0;
  while (end < text.size() && (IsBase64UrlCharacter(text[end]) || text[end] == '.')) {
    dots += text[end] == '.';
    ++end;
  }
  *run_end = end;
  return dots >= 2 ? end - at : 0;
}

void RedactInPlace(JsonValue& value) {
  if (value.is_string()) {
    if (LooksLikeACredential(value.as_string())) {
      value = JsonValue::String(std::string(kRedactedValue));
    }
  } else if (value.is_array()) {
    for (JsonValue& item : value.as_array()) RedactInPlace(item);
  } else if (value.is_object()) {
    JsonValue::Object& members = value.as_object();
    // A key is written as it is; one that carries a credential is not written at all.
    bool credential_key = false;
    for (auto it = members.begin(); it != members.end();) {
      if (LooksLikeACredential(it->first)) {
        credential_key = true;
        it = members.erase(it);
      } else {
        ++it;
      }
    }
    if (credential_key) {
      members[std::string(kRedactedValue)] = JsonValue::String(std::string(kRedactedValue));
    }
    const bool named_secret = NamesASecret(members);
    for (auto& [key, member] : members) {
      if (IsSecretKey(key) || (named_secret && key == "value")) {
        member = JsonValue::String(std::string(kRedactedValue));
      } else {
        RedactInPlace(member);
      }
    }
  }
}

}  // namespace

bool LooksLikeACredential(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  for (absl::string_view marker : kCredentialMarkers) {
    if (absl::StrContains(lower, marker)) return true;
  }
  return HoldsAnAuthorizationCredential(text, lower) || HoldsACompactJws(text) ||
         HoldsUrlUserinfo(text);
}

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

std::string RedactTokens(absl::string_view text) {
  // Linear in `text` (it runs on every argument key of every request, up to 64 KiB): each
  // cursor only moves forward, and an "eyJ" whose run has fewer than two dots rules out every
  // later "eyJ" of the same run, which has the same end and no more dots.
  constexpr size_t kNone = absl::string_view::npos;
  std::string redacted;
  size_t kept = 0;  // text[0, kept) is settled: copied to `redacted`, or nothing to redact
  size_t jws = text.find(kJwsMarker);
  size_t agent = NextAgentTokenStart(text, 0);
  while (jws != kNone || agent != kNone) {
    size_t run = 0;
    size_t at;
    size_t resume;      // where both searches go on from
    if (agent < jws) {  // never equal: "vdt_" and "eyJ" differ in their first character
      at = agent;
      run = AgentTokenRunAt(text, at);
      resume = run == 0 ? at + 1 : at + run;
    } else {
      at = jws;
      size_t run_end;
      run = JwsRunAt(text, at, &run_end);
      resume = run == 0 ? at + 1 : at + run;
      if (run == 0) jws = text.find(kJwsMarker, run_end);
    }
    if (run != 0) {
      absl::StrAppend(&redacted, text.substr(kept, at - kept), kRedactedValue);
      kept = at + run;
    }
    if (jws != kNone && jws < resume) jws = text.find(kJwsMarker, resume);
    if (agent != kNone && agent < resume) agent = NextAgentTokenStart(text, resume);
  }
  if (kept == 0) return std::string(text);  // the common case: one pass, then a copy
  absl::StrAppend(&redacted, text.substr(kept));
  return redacted;
}

std::string RedactOccurrences(absl::string_view text, absl::string_view secret) {
  if (secret.empty()) return std::string(text);
  return absl::StrReplaceAll(text, {{secret, kRedactedValue}});
}

}  // namespace verdict
