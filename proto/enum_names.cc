#include "proto/enum_names.h"

#include <cctype>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace verdict {

std::string EnumValuePrefix(const google::protobuf::EnumDescriptor& type) {
  std::string prefix;
  for (char c : type.name()) {
    if (std::isupper(static_cast<unsigned char>(c)) && !prefix.empty()) prefix += '_';
    prefix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return prefix + "_";
}

std::string ShortEnumName(const google::protobuf::EnumDescriptor& type, int number) {
  const google::protobuf::EnumValueDescriptor* value = type.FindValueByNumber(number);
  if (value == nullptr) return absl::StrCat(number);
  absl::string_view name = value->name();
  absl::ConsumePrefix(&name, EnumValuePrefix(type));
  return std::string(name);
}

bool ParseShortEnumName(const google::protobuf::EnumDescriptor& type, absl::string_view name,
                        int* number) {
  if (name.empty()) return false;
  const google::protobuf::EnumValueDescriptor* value =
      type.FindValueByName(absl::StrCat(EnumValuePrefix(type), name));
  if (value == nullptr) return false;
  *number = value->number();
  return true;
}

}  // namespace verdict
