// What the admin service writes to the admin audit log (store/admin_audit_log.h) for each admin
// write: who (the AdminActor), what (the call, the objects its request names, its arguments with
// every secret redacted), when, and the result. Protobuf stops here: the store gets plain text.
//
// A write call's row is written by AdminAuditRecorder inside the write's own transaction
// (app/policy_admin.h's AdminWriteRecorder), so the change and its author commit together; a
// call refused before its write committed (invalid input, NOT_FOUND, PERMISSION_DENIED,
// cancelled) gets its row in a transaction of its own afterwards. Reads (Get, List, Query,
// Verify, Export) and refused authentications are not recorded: the first change nothing, and
// the second come from callers not known to be anyone, who must not be able to grow the log.
//
//   AdminAuditRecorder recorder(actor, request, clock);
//   std::unique_ptr<PolicyAdmin> admin = plane.WithRecorder(recorder);
//   absl::Status answer = body(*admin);
//   recorder.RecordIfNotCommitted(audit_log, answer);
#ifndef VERDICT_SERVER_ADMIN_AUDIT_H_
#define VERDICT_SERVER_ADMIN_AUDIT_H_

#include <google/protobuf/message.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "app/admin_transaction.h"
#include "app/policy_admin.h"
#include "decision/admin/admin_actor.h"
#include "store/admin_audit_log.h"
#include "store/admin_audit_row.h"

namespace verdict {

// The AdminService method a request message is for: "CreateAgentRequest" -> "CreateAgent".
std::string AdminCallName(const google::protobuf::Message& request);

// True unless the call only reads (its name starts with Get, List, Query, Verify or Export):
// a new call is recorded unless it is known to change nothing.
bool IsAdminWrite(absl::string_view call);

// "secret", "session" or "peer_uid".
std::string AdminAuthMethodName(AdminAuthMethod method);

// The ids `request` names, each once, in field order: agents, permissions, delegations,
// approvals, kids (also the "kid" of a JWK it carries), jtis, principals.
std::vector<std::string> AdminAuditObjects(const google::protobuf::Message& request);

// The request as JSON (proto field names) with every secret removed: the fields
// AdminAuditRedactedFields() names, the private members of a JWK, any string field whose name
// looks secret (LooksLikeASecretField) unless AdminAuditAllowedFields() names it, any value
// RedactSecrets (common/redaction.h) finds, and tokens in free text. A large document (a policy
// import) is kept as its SHA-256 and size; the whole text is at most kMaxAdminAuditArgumentBytes.
std::string AdminAuditArguments(const google::protobuf::Message& request);

inline constexpr size_t kMaxAdminAuditArgumentBytes = 16 * 1024;

// How a field's value is kept in the audit log.
enum class AuditFieldRule {
  kRedacted,  // "[REDACTED]": a secret, a token, a password
  kJwk,       // a JWK's JSON without its private members ("k", "d", "p", ...)
  kDigest,    // "sha256:<hex>, <n> bytes": a document too large to keep
};
struct AuditField {
  const char* full_name;  // "verdict.v1.AddSigningKeyRequest.jwk_json"
  AuditFieldRule rule;
};
// Every request field of AdminService whose value is not kept as sent. A new field holding a
// secret must be added here (server/admin_audit_test.cc fails until it is).
absl::Span<const AuditField> AdminAuditRedactedFields();
// Fields whose names look secret (LooksLikeASecretField) but hold none, by full name.
absl::Span<const char* const> AdminAuditAllowedFields();
// True for a field name that suggests a secret: it contains secret, token, key, jwk, password,
// credential or authorization.
bool LooksLikeASecretField(absl::string_view field_name);

// Records one admin write call: in the write's transaction when it commits (RecordWrite), or,
// when nothing committed, in a transaction of its own (RecordIfNotCommitted).
class AdminAuditRecorder final : public AdminWriteRecorder {
 public:
  // `clock` is the time of the row, read when it is written.
  AdminAuditRecorder(const AdminActor& actor, const google::protobuf::Message& request,
                     std::function<absl::Time()> clock);

  absl::Status RecordWrite(AdminTransaction& transaction, const absl::Status& answer,
                           const std::vector<std::string>& created_ids) override;
  void Committed() override { committed_ = true; }

  // When no recorded write committed, appends the row for `answer` to `log` in a transaction of
  // its own. OK when there was nothing to do.
  absl::Status RecordIfNotCommitted(AdminAuditLog& log, const absl::Status& answer);

 private:
  AdminAuditRow RowFor(const absl::Status& answer) const;

  AdminAuditRow row_;
  const std::function<absl::Time()> clock_;
  bool committed_ = false;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_ADMIN_AUDIT_H_
