#include <string>

#include "cli/commands.h"
#include "cli/option_values.h"

namespace verdict {
namespace cli {

namespace {

// Add and rotate send the same two things: the JWK (from --jwk, a file or - for standard
// input) and its algorithms (--alg).
template <typename Request>
int SigningKeyFromOptions(Session& session, Request* request) {
  if (int code = ReadDocument(session, "jwk", request->mutable_jwk_json()); code != kExitOk) {
    return code;
  }
  for (const std::string& algorithm : SplitList(session.options().Get("alg"))) {
    request->add_allowed_algorithms(algorithm);
  }
  return kExitOk;
}

// Sends the key of --jwk and --alg with `method` (add or rotate); prints the key as it now is.
template <typename Request, typename Response>
int SendSigningKey(Session& session, grpc::Status (AdminStub::*method)(grpc::ClientContext*,
                                                                       const Request&, Response*)) {
  Request request;
  if (int code = SigningKeyFromOptions(session, &request); code != kExitOk) return code;
  Response response;
  int code = session.CallAdmin(method, request, &response);
  if (code == kExitOk) session.Print(response.key());
  return code;
}

}  // namespace

int RevokeTokenId(Session& session) {
  const ParsedOptions& o = session.options();
  v1::RevokeTokenIdRequest request;
  request.set_jti(o.Get("jti"));
  if (!ParseTimestamp(o.Get("expires_at"), request.mutable_expires_at())) {
    return session.UsageError(
        "--expires_at: the token's exp as an RFC 3339 time such as 2030-01-01T00:00:00Z");
  }
  v1::RevokeTokenIdResponse response;
  int code = session.CallAdmin(&AdminStub::RevokeTokenId, request, &response);
  if (code == kExitOk) session.PrintDone(response, "revoked token id", request.jti());
  return code;
}

int AddSigningKey(Session& session) { return SendSigningKey(session, &AdminStub::AddSigningKey); }

int RotateSigningKey(Session& session) {
  return SendSigningKey(session, &AdminStub::RotateSigningKey);
}

int RetireSigningKey(Session& session) {
  v1::RetireSigningKeyRequest request;
  request.set_kid(session.options().Get("kid"));
  v1::RetireSigningKeyResponse response;
  int code = session.CallAdmin(&AdminStub::RetireSigningKey, request, &response);
  if (code == kExitOk) session.Print(response.key());
  return code;
}

int ListSigningKeys(Session& session) {
  v1::ListSigningKeysResponse response;
  int code =
      session.CallAdmin(&AdminStub::ListSigningKeys, v1::ListSigningKeysRequest(), &response);
  if (code == kExitOk) session.PrintList(response, response.keys(), "");
  return code;
}

}  // namespace cli
}  // namespace verdict
