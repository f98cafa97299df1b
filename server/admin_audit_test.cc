// What the admin audit log keeps of a request: the call, the objects it names, and its arguments
// with every secret gone; and the guard that a new secret-bearing field of AdminService cannot
// reach the log unnoticed.
#include "server/admin_audit.h"

#include <google/protobuf/descriptor.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "verdict/v1/admin.grpc.pb.h"

namespace verdict {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Every string field, at any depth, of the request messages of every AdminService method.
void CollectStringFields(const Descriptor& message, std::set<const Descriptor*>& seen,
                         std::vector<const FieldDescriptor*>& fields) {
  if (!seen.insert(&message).second) return;
  for (int i = 0; i < message.field_count(); ++i) {
    const FieldDescriptor* field = message.field(i);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) fields.push_back(field);
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      CollectStringFields(*field->message_type(), seen, fields);
    }
  }
}

TEST(AdminAuditRedactionTest, EveryRequestFieldThatLooksSecretIsListedAsRedactedOrAllowed) {
  std::set<std::string> listed;
  for (const AuditField& field : AdminAuditRedactedFields()) listed.insert(field.full_name);
  for (const char* allowed : AdminAuditAllowedFields()) listed.insert(allowed);
  std::set<const Descriptor*> seen;
  std::vector<const FieldDescriptor*> fields;
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::AdminService::service_full_name());
  ASSERT_NE(service, nullptr);
  ASSERT_GT(service->method_count(), 20);
  for (int i = 0; i < service->method_count(); ++i) {
    CollectStringFields(*service->method(i)->input_type(), seen, fields);
  }
  std::vector<std::string> unlisted;
  for (const FieldDescriptor* field : fields) {
    if (LooksLikeASecretField(field->name()) && listed.count(field->full_name()) == 0) {
      unlisted.push_back(field->full_name());
    }
  }
  EXPECT_THAT(unlisted, IsEmpty())
      << "list these in server/admin_audit.cc: as redacted when they hold a secret, as allowed "
         "when they do not";
  // And every listed field exists: a renamed field must not leave its rule behind.
  std::set<std::string> existing;
  for (const FieldDescriptor* field : fields) existing.insert(field->full_name());
  for (const std::string& name : listed) EXPECT_EQ(existing.count(name), 1u) << name;
}

TEST(AdminAuditRedactionTest, AnHs256KeysSecretNeverReachesTheArgumentsButItsKidDoes) {
  v1::AddSigningKeyRequest request;
  request.set_jwk_json(
      R"({"kty":"oct","kid":"hs-1","alg":"HS256","k":"c2VjcmV0LWtleS1tYXRlcmlhbC0xMjM0NTY3ODk"})");
  const std::string arguments = AdminAuditArguments(request);
  EXPECT_THAT(arguments, Not(HasSubstr("c2VjcmV0LWtleS1tYXRlcmlhbC0xMjM0NTY3ODk")));
  EXPECT_THAT(AdminAuditObjects(request), ElementsAre("hs-1"));
}

TEST(AdminAuditRedactionTest, AnRsaPrivateKeysMembersAreRedacted) {
  v1::RotateSigningKeyRequest request;
  request.set_jwk_json(R"({"kty":"RSA","kid":"rsa-1","n":"modulus","e":"AQAB","d":"PRIVATE-D",)"
                       R"("p":"PRIVATE-P","q":"PRIVATE-Q","dp":"PRIVATE-DP","dq":"PRIVATE-DQ",)"
                       R"("qi":"PRIVATE-QI"})");
  const std::string arguments = AdminAuditArguments(request);
  EXPECT_THAT(arguments, Not(HasSubstr("PRIVATE")));
}

TEST(AdminAuditRedactionTest, APolicyImportIsKeptAsItsDigestAndSize) {
  v1::ImportPolicyRequest request;
  request.set_policy_json(R"({"agents":[{"id":"agt_1","token_sha256":"abcdef"}]})");
  const std::string arguments = AdminAuditArguments(request);
  EXPECT_THAT(arguments, HasSubstr("sha256:"));
  EXPECT_THAT(arguments, Not(HasSubstr("abcdef")));
}

TEST(AdminAuditRedactionTest, AnAgentTokenPastedIntoAnyFieldIsRedacted) {
  v1::CreateAgentRequest request;
  request.set_owner("alice");
  request.set_name("bot");
  const std::string token = "vdt_0123456789abcdef0123456789abcdef0123456789abcdef";
  request.set_description(absl::StrCat("uses ", token));
  const std::string arguments = AdminAuditArguments(request);
  EXPECT_THAT(arguments, Not(HasSubstr(token)));
  EXPECT_THAT(arguments, HasSubstr("alice"));
}

TEST(AdminAuditRedactionTest, ArgumentsAreBoundedWhateverTheRequestsSize) {
  v1::CreateAgentRequest request;
  request.set_description(std::string(1 << 20, 'x'));
  const std::string arguments = AdminAuditArguments(request);
  EXPECT_LE(arguments.size(), kMaxAdminAuditArgumentBytes);
  EXPECT_THAT(arguments, HasSubstr("truncated"));
}

TEST(AdminAuditObjectsTest, EachCallNamesTheObjectsItActsOn) {
  v1::RevokeAgentRequest revoke;
  revoke.set_agent_id("agt_1");
  EXPECT_THAT(AdminAuditObjects(revoke), ElementsAre("agt_1"));

  v1::GrantPermissionRequest grant;
  grant.set_agent_id("agt_1");
  grant.mutable_permission()->set_resource("docs:*");
  EXPECT_THAT(AdminAuditObjects(grant), ElementsAre("agt_1"));

  v1::CreateDelegationRequest delegate;
  delegate.mutable_delegation()->set_from_agent_id("agt_a");
  delegate.mutable_delegation()->set_to_agent_id("agt_b");
  EXPECT_THAT(AdminAuditObjects(delegate), ElementsAre("agt_a", "agt_b"));

  v1::ApproveRequestRequest approve;
  approve.set_approval_id("apr_1");
  approve.set_approver("bob");
  EXPECT_THAT(AdminAuditObjects(approve), ElementsAre("apr_1"));

  v1::RevokeTokenIdRequest jti;
  jti.set_jti("jti-42");
  EXPECT_THAT(AdminAuditObjects(jti), ElementsAre("jti-42"));

  v1::RetireSigningKeyRequest retire;
  retire.set_kid("hs-1");
  EXPECT_THAT(AdminAuditObjects(retire), ElementsAre("hs-1"));
}

TEST(AdminAuditCallsTest, ReadsAreNotRecordedAndEveryOtherCallIs) {
  EXPECT_EQ(AdminCallName(v1::RevokeAgentRequest()), "RevokeAgent");
  for (const char* read :
       {"GetAgent", "ListAgents", "ListApprovals", "QueryDecisionLog", "VerifyDecisionLog",
        "ExportPolicy", "ListSigningKeys", "QueryAdminAudit", "VerifyAdminAudit"}) {
    EXPECT_FALSE(IsAdminWrite(read)) << read;
  }
  for (const char* write :
       {"CreateAgent", "SuspendAgent", "ReactivateAgent", "RevokeAgent", "RotateToken",
        "GrantPermission", "RevokePermission", "CreateDelegation", "RevokeDelegation",
        "ApproveRequest", "DenyRequest", "ImportPolicy", "RevokeTokenId", "AddSigningKey",
        "RotateSigningKey", "RetireSigningKey"}) {
    EXPECT_TRUE(IsAdminWrite(write)) << write;
  }
}

}  // namespace
}  // namespace verdict
