// What a well-formed request is. Everything else is INVALID_ARGUMENT with a message that names
// the field and what is wrong, before the store is touched.
#ifndef VERDICT_DECISION_REQUEST_VALIDATION_H_
#define VERDICT_DECISION_REQUEST_VALIDATION_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "decision/types.h"

namespace verdict {

inline constexpr size_t kMaxIdLength = 128;
inline constexpr size_t kMaxActionLength = 128;
inline constexpr size_t kMaxResourceLength = 1024;
inline constexpr size_t kMaxArgumentsBytes = 64 * 1024;
inline constexpr int kMaxArgumentsDepth = 16;
inline constexpr size_t kMaxRequestIdLength = 128;
inline constexpr size_t kMaxBatchSize = 256;

// An agent id: 1..128 bytes of [A-Za-z0-9_.:-]; INVALID_ARGUMENT naming `field` otherwise.
absl::Status ValidateAgentId(absl::string_view field, absl::string_view id);

// Subject: exactly one of agent_id and token; agent ids are 1..128 bytes of
// [A-Za-z0-9_.:-]; a token must have an agent token's shape or, when it holds a '.', a JWT
// access token's (crypto/token.h). The DPoP proof, method and URI are checked where they are
// used (crypto/dpop.h), so a bad proof refuses the token rather than the request.
// Action: ValidateActionName. Resource: 1..1024 bytes of valid UTF-8 with no control
// characters; a path (one starting with '/') also spelled the one way decision/path_escapes.h
// describes, any other resource with no empty colon segment (decision/resource_match.h).
// client_ip: empty or an IPv4/IPv6 address. arguments_json: ValidateArguments. request_id: at
// most 128 printable ASCII bytes.
absl::Status ValidateRequest(const Request& request);

// arguments_json: empty or a JSON object within the size and depth limits whose keys and strings
// hold no control character (C0, DEL, C1: "\n", "\u0000", "\u0085"), since argument rules
// compare whole values; INVALID_ARGUMENT naming "arguments_json" otherwise.
absl::Status ValidateArguments(absl::string_view arguments_json);

// The two halves of ValidateRequest, for a batch whose checks share one subject and context:
// the subject, client_ip and request_id; then the action, resource and arguments_json.
absl::Status ValidateSharedFields(const Request& request);
absl::Status ValidateCheckFields(const Request& request);

}  // namespace verdict

#endif  // VERDICT_DECISION_REQUEST_VALIDATION_H_
