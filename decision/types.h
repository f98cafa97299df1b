// The engine's own model of verdict's policy (design section 1), free of protobuf and SQL.
//
// The store fills these from rows; the server fills Request from the wire. Times are absl::Time;
// absl::InfiniteFuture() means "never expires".
#ifndef VERDICT_DECISION_TYPES_H_
#define VERDICT_DECISION_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace verdict {

enum class AgentKind { kAutonomous, kDelegated, kService };
enum class AgentStatus { kActive, kSuspended, kRevoked };
enum class Effect { kAllow, kDeny };

// The agents' descriptive columns: text for operators (what the agent is for, who to call), set
// when an agent is created, shown by GetAgent and ListAgents, kept by policy export and import,
// never read by a decision (a decision's lookups clear them; SQLite's decision records leave them
// out). Each is COLUMN(name, help): by that name a column of `agents`, a key of the policy JSON's
// agents, a field of verdict.v1.Agent and CreateAgentRequest (or of their AgentDetails) and a
// flag of `verdict agents create`, which shows `help`; optional, and when given, 1 to
// kMaxDisplayTextBytes bytes of UTF-8 without control characters.
//
// A new one is a line here, its migration (store/migrations.cc) and its field of AgentDetails
// (proto/verdict/v1/decision.proto): the SQL, the rows, the input check, policy JSON, the proto
// translation and the command line follow from this list (kAgentTextColumns).
#define VERDICT_AGENT_TEXT_COLUMNS(COLUMN)                    \
  COLUMN(description, "what the agent is for, for operators") \
  COLUMN(contact, "how to reach whoever answers for the agent (mail, chat, pager)")
#define VERDICT_AGENT_TEXT_MEMBER(name, help) std::string name;

struct Agent {
  std::string id;
  std::string owner;
  std::string name;
  AgentKind kind = AgentKind::kAutonomous;
  AgentStatus status = AgentStatus::kActive;
  absl::Time expires_at = absl::InfiniteFuture();
  // The first characters of the current token, for people to recognise it; never a secret.
  std::string token_prefix;
  absl::Time created_at = absl::UnixEpoch();
  absl::Time updated_at = absl::UnixEpoch();
  // The descriptive columns, each "" when none was given.
  VERDICT_AGENT_TEXT_COLUMNS(VERDICT_AGENT_TEXT_MEMBER)
};

// One of VERDICT_AGENT_TEXT_COLUMNS as a member of `Row` (Agent, or decision/admin's NewAgent,
// which holds the same members).
template <typename Row>
struct AgentTextColumn {
  const char* name;
  std::string Row::*member;
  const char* help;
};
#define VERDICT_AGENT_TEXT_ENTRY(name, help) {#name, &Row::name, help},
template <typename Row>
inline constexpr AgentTextColumn<Row> kAgentTextColumns[] = {
    VERDICT_AGENT_TEXT_COLUMNS(VERDICT_AGENT_TEXT_ENTRY)};
#undef VERDICT_AGENT_TEXT_ENTRY

// A permission as stored: the constraints stay JSON text until a grant matches, so a decision
// parses only the constraints it needs (decision/constraints.h).
struct Permission {
  std::string id;
  std::string agent_id;              // the owner
  std::string resource;              // a pattern (decision/resource_match.h)
  std::vector<std::string> actions;  // exact names, or "*"
  Effect effect = Effect::kAllow;
  std::string constraints_json;  // "" or "{}" for none
  absl::Time created_at = absl::UnixEpoch();
};

enum class DelegationStatus { kActive, kRevoked };

// A part of the delegator's rights lent to the delegate. The delegate holds it only while the
// delegator itself holds the same right at decision time.
struct LentPermission {
  std::string resource;
  std::vector<std::string> actions;
  std::string constraints_json;
};

struct Delegation {
  std::string id;
  std::string from_agent_id;
  std::string to_agent_id;
  std::vector<LentPermission> permissions;
  // The longest delegation path (in links) this link may be part of.
  int max_depth = 1;
  DelegationStatus status = DelegationStatus::kActive;
  absl::Time expires_at = absl::InfiniteFuture();
  absl::Time created_at = absl::UnixEpoch();
};

enum class ApprovalStatus { kPending, kApproved, kDenied, kExpired, kUsed };

struct ApprovalRequest {
  std::string id;
  std::string agent_id;
  std::string action;
  std::string resource;
  std::string arguments_hash;  // hex SHA-256 of the canonical JSON of the arguments
  int quorum = 1;
  int approvals = 0;  // distinct approvers who approved
  ApprovalStatus status = ApprovalStatus::kPending;
  absl::Time expires_at = absl::InfiniteFuture();
  absl::Time created_at = absl::UnixEpoch();
};

// A DPoP proof of possession (RFC 9449) sent with a token, and the HTTP request it was made for.
// A JWT access token bound to a key (its "cnf.jkt") is accepted only with a valid proof.
struct DpopEvidence {
  std::string proof;        // the DPoP header's value; "" when none was sent
  std::string http_method;  // "GET", "POST"...
  std::string http_uri;     // "https://api.example/v1/docs"
};

// Who asks. Exactly one of agent_id and token is set. A token is an opaque agent token or a JWT
// access token (crypto/jwt.h), which names the agent in its "sub" claim.
struct Subject {
  std::string agent_id;
  std::string token;
  DpopEvidence dpop;
};

struct Request {
  Subject subject;
  std::string action;
  std::string resource;
  std::string client_ip;       // "" when unknown: an IP allowlist then fails
  std::string arguments_json;  // "" means {}
  std::string request_id;
};

// One check of a batch: what a Request holds beyond its subject and context.
struct BatchCheck {
  std::string action;
  std::string resource;
  std::string arguments_json;  // "" means the batch's
};

// Many checks for one caller (BatchAuthorize): one subject and one context, shared by every
// check, each of which is decided as the Request they make together would be.
struct BatchRequest {
  Subject subject;
  std::string client_ip;
  std::string arguments_json;  // the checks' unless a check brings its own
  std::string request_id;
  std::vector<BatchCheck> checks;
};

enum class SigningKeyStatus { kActive, kRetired };

// A key that signs JWT access tokens, kept in the store (the JWKS file holds the others). Only
// active keys verify tokens; a retired key is kept for the record.
struct SigningKey {
  std::string kid;
  std::string jwk_json;  // one JWK: a public key, or an HS256 secret
  // The JWS algorithms the key may verify ("EdDSA", "ES256", "HS256"): never empty.
  std::vector<std::string> allowed_algorithms;
  SigningKeyStatus status = SigningKeyStatus::kActive;
  absl::Time created_at = absl::UnixEpoch();
  absl::Time updated_at = absl::UnixEpoch();  // the last rotation in place
  absl::Time retired_at = absl::InfiniteFuture();
};

enum class Verdict { kAllow, kDeny, kNeedsApproval };

// One spelling per concept: these match verdict.v1.ReasonCode.
enum class ReasonCode {
  kAllowed,
  kAgentNotFound,
  kAgentSuspended,
  kAgentRevoked,
  kAgentExpired,
  kTokenInvalid,
  kDeniedByPolicy,
  kNoMatchingPermission,
  kOutsideTimeWindow,
  kIpNotAllowed,
  kArgumentsRejected,
  kApprovalRequired,
  kApprovalDenied,
  kRateLimited,
  // The decision needed more lookups and delegation steps than its budget allows.
  kEvaluationLimit,
  // An approval would be opened, but the agent already has the most pending requests allowed.
  kTooManyPendingApprovals,
};

// "AGENT_REVOKED" and so on, as in the proto and the decision log.
const char* ReasonCodeName(ReasonCode code);
const char* VerdictName(Verdict verdict);

struct DelegationHop {
  std::string delegation_id;
  std::string from_agent_id;
  std::string to_agent_id;
};

// A permission that took part in a decision; for a lent permission, the owner's permission
// at the origin of the path.
struct Grant {
  std::string permission_id;
  std::string owner_agent_id;
  std::string resource;
  std::vector<std::string> actions;
  Effect effect = Effect::kAllow;
  std::string constraints_json;
};

// A rate-limit slot an ALLOW spends: one count in (agent, permission, window), the agent being
// the subject of the call, so every agent that holds a rate-limited grant (its own permission or
// one lent to it) spends its own quota of it (design section 1).
struct RateSpend {
  std::string agent_id;
  std::string permission_id;
  int64_t window_start_unix = 0;  // seconds
  int64_t limit = 0;
  // The window's length; 0 when unknown. Counts of windows that ended before the previous one
  // are never read again, and a store may forget them (decision/policy_store.h).
  int64_t window_seconds = 0;
};

// The start of the earliest window of (spend.agent_id, spend.permission_id) a store keeps once
// `spend` is
// counted: the previous window's, for sidecars whose clocks differ by less than a window.
// nullopt when the window's length is unknown: then every window is kept.
inline std::optional<int64_t> EarliestKeptRateWindow(const RateSpend& spend) {
  if (spend.window_seconds <= 0) return std::nullopt;
  return spend.window_start_unix - spend.window_seconds;
}

// When no decision reads the count `spend` makes any more: once its window and the next have
// ended (EarliestKeptRateWindow), in unix seconds; nullopt when the window's length is unknown.
// A store may delete the count from then on (store/pruning.h).
inline std::optional<int64_t> RateCountKeptUntil(const RateSpend& spend) {
  if (spend.window_seconds <= 0) return std::nullopt;
  return spend.window_start_unix + 2 * spend.window_seconds;
}

// An approval request a NEEDS_APPROVAL opens, when none is pending for the same call.
struct ApprovalToOpen {
  std::string agent_id;
  std::string action;
  std::string resource;
  std::string arguments_hash;
  int quorum = 1;
  absl::Time expires_at;
};

// Writes an Authorize must make for its decision to stand; Simulate never makes them.
struct SideEffects {
  std::vector<RateSpend> rate_spends;
  std::optional<std::string> approval_to_use;  // an approved request's id
  std::optional<ApprovalToOpen> approval_to_open;

  bool empty() const { return rate_spends.empty() && !approval_to_use && !approval_to_open; }
};

struct Decision {
  Verdict verdict = Verdict::kDeny;
  ReasonCode reason = ReasonCode::kNoMatchingPermission;
  std::string message;
  std::string agent_id;
  std::optional<Grant> matched_grant;
  std::vector<DelegationHop> delegation_path;
  std::string approval_request_id;
  // When the decision used an approved request: the distinct principals who approved it, by
  // name. They answer for the call it allowed (the decision log records them).
  std::vector<std::string> approved_by;
  std::string request_id;
  SideEffects side_effects;
};

}  // namespace verdict

#endif  // VERDICT_DECISION_TYPES_H_
