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
  // It travels in a gRPC header ("authorization: Bearer ..."), which holds printable ASCII only:
  // any other byte would make the secret impossible to present (h41).
  for (char c : secret) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte >= 0x7f) {
      return absl::InvalidArgumentError(
          "the admin secret must be printable ASCII, without white space or control characters");
    }
  }
  return absl::OkStatus();
}

}  // namespace verdict
