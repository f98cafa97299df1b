#include "server/access_tokens.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "crypto/jwk.h"

namespace verdict {

absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> AccessTokenVerifierFromOptions(
    const ServerOptions& options, JwksFileKeys* file_keys) {
  if (options.jwt_issuer.empty()) return nullptr;
  AccessTokenOptions access_tokens;
  access_tokens.policy.issuer = options.jwt_issuer;
  access_tokens.policy.audience = options.jwt_audience;
  access_tokens.policy.leeway = options.jwt_leeway;
  access_tokens.policy.allowed_algorithms.clear();
  for (const std::string& name : options.jwt_algorithms) {
    std::optional<JwsAlgorithm> algorithm = JwsAlgorithmFromName(name);
    if (!algorithm) {
      return absl::InvalidArgumentError(absl::StrCat("--jwt_algorithms: unknown ", name));
    }
    access_tokens.policy.allowed_algorithms.push_back(*algorithm);
  }
  access_tokens.dpop_iat_window = options.dpop_iat_window;

  if (!options.jwks_file.empty()) {
    std::ifstream file(options.jwks_file, std::ios::binary);
    if (!file)
      return absl::NotFoundError(
          absl::StrCat("--jwks_file: cannot read ", options.jwks_file, ": ", std::strerror(errno)));
    std::ostringstream text;
    text << file.rdbuf();
    // No allowlist here: each key must say which algorithm it is for ("alg"), so none is
    // inferred from a key's type.
    absl::StatusOr<KeySet> keys = KeySet::FromJwks(text.str());
    if (!keys.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jwks_file=", options.jwks_file, ": ", keys.status().message()));
    }
    // A key for an algorithm --jwt_algorithms leaves out verifies nothing either (h40).
    std::vector<std::string> unusable = keys->skipped();
    size_t usable = 0;
    for (const std::string& kid : keys->kids()) {
      const Jwk* key = keys->Find(kid);
      const bool allowed =
          std::any_of(access_tokens.policy.allowed_algorithms.begin(),
                      access_tokens.policy.allowed_algorithms.end(),
                      [key](JwsAlgorithm algorithm) { return key->Allows(algorithm); });
      if (allowed) {
        ++usable;
      } else {
        unusable.push_back(
            absl::StrCat("kid \"", kid, "\": its algorithm is not in --jwt_algorithms"));
      }
    }
    if (usable == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--jwks_file=", options.jwks_file, ": no key verdict can use (EdDSA, ES256, HS256",
          " and allowed by --jwt_algorithms)", unusable.empty() ? "" : ": ",
          absl::StrJoin(unusable, "; ")));
    }
    if (file_keys != nullptr) *file_keys = JwksFileKeys{keys->kids(), unusable};
    access_tokens.keys = *std::move(keys);
  }
  return AccessTokenVerifier::Create(std::move(access_tokens));
}

}  // namespace verdict
