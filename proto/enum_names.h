// The short names of verdict.v1's enum values: the value's name without its type's prefix.
//
// buf's lint (ENUM_VALUE_PREFIX) has every value carry its type's name (VERDICT_ALLOW,
// REASON_CODE_DENIED_BY_POLICY, AGENT_STATUS_REVOKED). What verdict writes for people and
// for stored records keeps the short form it always had: the decision logs (whose hash chain
// covers "ALLOW" and "DENIED_BY_POLICY"), the CLI's one-line answers, the CLI's --kind and
// --verdict options.
//
//   ShortEnumName(v1::REASON_CODE_DENIED_BY_POLICY)       // "DENIED_BY_POLICY"
//   v1::Verdict verdict;
//   ParseShortEnumName("ALLOW", &verdict)                  // true, VERDICT_ALLOW
#ifndef VERDICT_PROTO_ENUM_NAMES_H_
#define VERDICT_PROTO_ENUM_NAMES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/generated_enum_reflection.h"

namespace verdict {

// "Verdict" -> "VERDICT_", "ReasonCode" -> "REASON_CODE_".
std::string EnumValuePrefix(const google::protobuf::EnumDescriptor& type);

// The value's name without its type's prefix; the number in decimal when the type has no such
// value (a newer peer's value).
std::string ShortEnumName(const google::protobuf::EnumDescriptor& type, int number);

// The value whose name is `name` with the prefix put back; false when there is none. `name`
// must be exact (upper case), as ShortEnumName writes it.
bool ParseShortEnumName(const google::protobuf::EnumDescriptor& type, absl::string_view name,
                        int* number);

template <typename Enum>
std::string ShortEnumName(Enum value) {
  return ShortEnumName(*google::protobuf::GetEnumDescriptor<Enum>(), static_cast<int>(value));
}

template <typename Enum>
bool ParseShortEnumName(absl::string_view name, Enum* value) {
  int number = 0;
  if (!ParseShortEnumName(*google::protobuf::GetEnumDescriptor<Enum>(), name, &number)) {
    return false;
  }
  *value = static_cast<Enum>(number);
  return true;
}

}  // namespace verdict

#endif  // VERDICT_PROTO_ENUM_NAMES_H_
