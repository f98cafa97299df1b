#include "server/admin_secret.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace verdict {

absl::StatusOr<std::string> ReadAdminSecretFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return absl::NotFoundError(
        absl::StrCat("cannot read the admin secret file ", path, ": ", std::strerror(errno)));
  std::ostringstream contents;
  contents << file.rdbuf();
  std::string secret(absl::StripAsciiWhitespace(contents.str()));
  if (absl::Status checked = CheckAdminSecret(secret); !checked.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", checked.message()));
  }
  return secret;
}

absl::Status CheckAdminSecret(absl::string_view secret) {
  if (secret.size() < kMinAdminSecretLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("the admin secret must have at least ", kMinAdminSecretLength, " characters"));
  }
  for (char c : secret) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
        absl::ascii_iscntrl(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          "the admin secret must not contain white space or control characters");
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
