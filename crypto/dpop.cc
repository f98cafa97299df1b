#include "crypto/dpop.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "crypto/jwk.h"
#include "crypto/jwt_compact.h"
#include "crypto/sha256.h"
#include "crypto/token.h"

namespace verdict {
namespace {

// Ids are stored per proof key, so a client cannot spend another client's jti; the bound keeps a
// hostile jti from costing more memory than a hash.
constexpr size_t kMaxJtiBytes = 256;

absl::StatusOr<Jwk> ProofKey(const DecodedJwt& jwt) {
  if (IsSymmetric(jwt.algorithm)) {
    return JwtRejection(JwtError::kAlgorithmNotAllowed,
                        "a DPoP proof is signed with an asymmetric key");
  }
  const JsonValue* jwk = jwt.header.Find("jwk");
  if (jwk == nullptr) return JwtRejection(JwtError::kMalformed, "no \"jwk\" header");
  const JwsAlgorithm allowed[] = {jwt.algorithm};
  absl::StatusOr<Jwk> key = Jwk::FromJson(*jwk, allowed);
  if (!key.ok()) {
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat("the \"jwk\" header: ", key.status().message()));
  }
  if (key->has_private_part()) {
    return JwtRejection(JwtError::kMalformed, "the \"jwk\" header holds a private key");
  }
  return key;
}

absl::Status CheckIssuedAt(absl::Time issued_at, absl::Time now, absl::Duration iat_window) {
  if (now - issued_at > iat_window) {
    return JwtRejection(JwtError::kExpired, absl::StrCat("issued at ", absl::FormatTime(issued_at),
                                                         ", before the window"));
  }
  if (issued_at - now > iat_window) {
    return JwtRejection(JwtError::kNotYetValid,
                        absl::StrCat("issued at ", absl::FormatTime(issued_at), ", in the future"));
  }
  return absl::OkStatus();
}

absl::Status CheckAccessTokenBinding(const JsonValue& claims, const DpopRequest& request,
                                     const Jwk& key) {
  if (!request.access_token.empty()) {
    if (request.token_jkt.empty()) {
      return JwtRejection(JwtError::kWrongKeyBinding,
                          "the access token is not bound to a DPoP key");
    }
    absl::StatusOr<std::string> ath = RequiredStringClaim(claims, "ath");
    if (!ath.ok()) return ath.status();
    if (*ath != Base64UrlEncode(Sha256(request.access_token))) {
      return JwtRejection(JwtError::kWrongTokenHash, "\"ath\" is not the access token's hash");
    }
  }
  if (!request.token_jkt.empty() && key.thumbprint() != request.token_jkt) {
    return JwtRejection(JwtError::kWrongKeyBinding,
                        "the proof key is not the key the access token is bound to");
  }
  return absl::OkStatus();
}

}  // namespace

std::string NormalizedHtu(absl::string_view uri) {
  uri = uri.substr(0, uri.find_first_of("?#"));
  const size_t scheme_end = uri.find("://");
  if (scheme_end == absl::string_view::npos) return std::string(uri);
  const std::string scheme = absl::AsciiStrToLower(uri.substr(0, scheme_end));
  absl::string_view rest = uri.substr(scheme_end + 3);
  const size_t path_start = rest.find('/');
  std::string authority = absl::AsciiStrToLower(rest.substr(0, path_start));
  absl::string_view path = path_start == absl::string_view::npos ? "/" : rest.substr(path_start);
  const absl::string_view default_port = scheme == "https" ? ":443" : scheme == "http" ? ":80" : "";
  if (!default_port.empty() && absl::EndsWith(authority, default_port)) {
    authority.resize(authority.size() - default_port.size());
  }
  return absl::StrCat(scheme, "://", authority, path);
}

// "https://host/..." or "http://host/...": a scheme verdict compares and an authority.
bool IsAbsoluteHttpUri(absl::string_view uri) {
  const size_t scheme_end = uri.find("://");
  if (scheme_end == absl::string_view::npos) return false;
  const std::string scheme = absl::AsciiStrToLower(uri.substr(0, scheme_end));
  const absl::string_view rest = uri.substr(scheme_end + 3);
  return (scheme == "https" || scheme == "http") && !rest.empty() && rest.front() != '/';
}

absl::StatusOr<DpopProof> VerifyDpopProof(absl::string_view proof, const DpopRequest& request,
                                          absl::Time now, absl::Duration iat_window,
                                          DpopReplayCache& replay_cache) {
  absl::StatusOr<DecodedJwt> jwt = DecodeJwt(proof);
  if (!jwt.ok()) return jwt.status();
  if (!HasType(jwt->header, "dpop+jwt")) {
    return JwtRejection(JwtError::kWrongType, "the \"typ\" header is not dpop+jwt");
  }
  absl::StatusOr<Jwk> key = ProofKey(*jwt);
  if (!key.ok()) return key.status();
  absl::StatusOr<JsonValue> claims = VerifiedPayload(*jwt, *key);
  if (!claims.ok()) return claims.status();

  DpopProof result;
  result.jkt = key->thumbprint();
  absl::StatusOr<std::string> jti = RequiredStringClaim(*claims, "jti");
  if (!jti.ok()) return jti.status();
  if (jti->empty() || jti->size() > kMaxJtiBytes) {
    return JwtRejection(JwtError::kMalformed,
                        absl::StrCat("\"jti\" must have 1 to ", kMaxJtiBytes, " bytes"));
  }
  result.jti = *std::move(jti);
  absl::StatusOr<std::string> htm = RequiredStringClaim(*claims, "htm");
  if (!htm.ok()) return htm.status();
  absl::StatusOr<std::string> htu = RequiredStringClaim(*claims, "htu");
  if (!htu.ok()) return htu.status();
  absl::StatusOr<absl::Time> issued_at = RequiredTimeClaim(*claims, "iat");
  if (!issued_at.ok()) return issued_at.status();
  result.issued_at = *issued_at;

  // A proof binds one request: a caller that did not say which request it came with, or a proof
  // made for no request in particular (a relative or empty URI; an empty method cannot equal the
  // caller's, which is never empty here), proves nothing (RFC 9449 section 4.3, checks 8 and 9).
  if (request.http_method.empty() || request.http_uri.empty()) {
    return JwtRejection(JwtError::kWrongUrl,
                        "the request's method and URI are needed to check a DPoP proof");
  }
  if (!IsAbsoluteHttpUri(*htu)) {
    return JwtRejection(JwtError::kWrongUrl, "the proof's htu is not an absolute http(s) URI");
  }
  if (*htm != request.http_method) {
    return JwtRejection(JwtError::kWrongMethod,
                        absl::StrCat("the proof is for ", *htm, ", not ", request.http_method));
  }
  if (NormalizedHtu(*htu) != NormalizedHtu(request.http_uri)) {
    return JwtRejection(JwtError::kWrongUrl, absl::StrCat("the proof is for ", *htu));
  }
  if (absl::Status fresh = CheckIssuedAt(result.issued_at, now, iat_window); !fresh.ok()) {
    return fresh;
  }
  if (absl::Status bound = CheckAccessTokenBinding(*claims, request, *key); !bound.ok()) {
    return bound;
  }
  // Last, so that proofs refused for any other reason do not fill the cache.
  const std::string replay_id = Sha256(absl::StrCat(result.jkt, ".", result.jti));
  switch (replay_cache.Record(replay_id, result.issued_at + iat_window, now)) {
    case DpopReplayCache::Result::kFirstUse:
      return result;
    case DpopReplayCache::Result::kReplay:
      return JwtRejection(JwtError::kReplayed, absl::StrCat("jti ", result.jti, " was used"));
    case DpopReplayCache::Result::kFull:
      return JwtRejection(JwtError::kReplayCacheFull, "too many live DPoP proofs");
  }
  return JwtRejection(JwtError::kReplayCacheFull, "unknown replay cache result");
}

}  // namespace verdict
