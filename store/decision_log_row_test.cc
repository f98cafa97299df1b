#include "store/decision_log_row.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/hash_chain.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

DecisionLogRow SampleRow() {
  DecisionLogRow row;
  row.seq = 7;
  row.decided_at_us = 1700000000123456;
  row.request_id = "req-1";
  row.agent_id = "agt_a";
  row.action = "read";
  row.resource = "docs:1";
  row.client_ip = "10.0.0.1";
  row.arguments_json = R"({"n":1})";
  row.verdict = "ALLOW";
  row.reason = "ALLOWED";
  row.message = "allowed";
  row.matched_permission_id = "perm_1";
  row.delegation_path_json = "[]";
  row.approval_request_id = "";
  row.latency_us = 42;
  row.prev_hash = kGenesisHash;
  return row;
}

TEST(ChainHashTest, IsHexSha256AndDeterministic) {
  const std::string hash = ChainHash(SampleRow());
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(ChainHash(SampleRow()), hash);
}

TEST(ChainHashTest, CoversEveryFieldButItsOwnHash) {
  const std::vector<std::function<void(DecisionLogRow&)>> edits = {
      [](DecisionLogRow& r) { r.seq = 8; },
      [](DecisionLogRow& r) { r.decided_at_us += 1; },
      [](DecisionLogRow& r) { r.request_id = "req-2"; },
      [](DecisionLogRow& r) { r.agent_id = "agt_b"; },
      [](DecisionLogRow& r) { r.action = "write"; },
      [](DecisionLogRow& r) { r.resource = "docs:2"; },
      [](DecisionLogRow& r) { r.client_ip = "10.0.0.2"; },
      [](DecisionLogRow& r) { r.arguments_json = R"({"n":2})"; },
      [](DecisionLogRow& r) { r.verdict = "DENY"; },
      [](DecisionLogRow& r) { r.reason = "DENIED_BY_POLICY"; },
      [](DecisionLogRow& r) { r.message = "denied"; },
      [](DecisionLogRow& r) { r.matched_permission_id = "perm_2"; },
      [](DecisionLogRow& r) { r.delegation_path_json = R"([{"delegation_id":"d"}])"; },
      [](DecisionLogRow& r) { r.approval_request_id = "apr_1"; },
      [](DecisionLogRow& r) { r.latency_us = 43; },
      [](DecisionLogRow& r) { r.prev_hash = std::string(64, '1'); },
      [](DecisionLogRow& r) { r.approved_by_json = R"(["carol"])"; },
  };
  const std::string original = ChainHash(SampleRow());
  for (size_t i = 0; i < edits.size(); ++i) {
    DecisionLogRow edited = SampleRow();
    edits[i](edited);
    EXPECT_NE(ChainHash(edited), original) << "edit " << i << " left the hash unchanged";
  }
  DecisionLogRow with_hash = SampleRow();
  with_hash.hash = "anything";
  EXPECT_EQ(ChainHash(with_hash), original);
}

// Rows written before version 15 have no approvers, and keep the hash they were written with:
// the fields hashed then, and nothing else.
TEST(ChainHashTest, ARowNamingNoApproverHashesTheFieldsRowsHadBeforeApprovers) {
  const DecisionLogRow row = SampleRow();
  JsonValue::Object fields;
  fields.emplace("seq", ChainInteger(row.seq));
  fields.emplace("decided_at_us", ChainInteger(row.decided_at_us));
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"request_id", row.request_id},
           {"agent_id", row.agent_id},
           {"action", row.action},
           {"resource", row.resource},
           {"client_ip", row.client_ip},
           {"arguments_json", row.arguments_json},
           {"verdict", row.verdict},
           {"reason", row.reason},
           {"message", row.message},
           {"matched_permission_id", row.matched_permission_id},
           {"delegation_path_json", row.delegation_path_json},
           {"approval_request_id", row.approval_request_id},
           {"prev_hash", row.prev_hash}}) {
    fields.emplace(name, JsonValue::String(value));
  }
  fields.emplace("latency_us", ChainInteger(row.latency_us));
  EXPECT_EQ(ChainHash(row), ChainHashOfFields(std::move(fields)));
}

TEST(MakeDecisionLogRowTest, NamesThePrincipalsWhoApprovedTheApprovalItUsed) {
  Request request;
  request.action = "deploy";
  request.resource = "svc:web";
  Decision decision;
  decision.verdict = Verdict::kAllow;
  decision.reason = ReasonCode::kAllowed;
  decision.approval_request_id = "apr_1";
  decision.approved_by = {"carol", "dave"};
  const DecisionLogRow row = MakeDecisionLogRow(request, decision, absl::ZeroDuration(),
                                                absl::FromUnixSeconds(1'800'000'000));
  EXPECT_EQ(row.approved_by_json, R"(["carol","dave"])");
  absl::StatusOr<std::vector<std::string>> read = ApprovedByFromJson(row.approved_by_json);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_THAT(*read, testing::ElementsAre("carol", "dave"));

  decision.approved_by.clear();
  EXPECT_EQ(
      MakeDecisionLogRow(request, decision, absl::ZeroDuration(), absl::Now()).approved_by_json, "")
      << "no approval used: nothing, as rows had before";
}

TEST(ApprovedByFromJsonTest, RejectsWhatItDidNotWrite) {
  EXPECT_THAT(*ApprovedByFromJson(""), testing::IsEmpty());
  EXPECT_FALSE(ApprovedByFromJson("{}").ok());
  EXPECT_FALSE(ApprovedByFromJson("[1]").ok());
  EXPECT_FALSE(ApprovedByFromJson("[").ok());
}

TEST(MakeDecisionLogRowTest, KeepsTheDecisionAndNeverTheToken) {
  Request request;
  request.subject.token = "vdt_secretsecretsecretsecretsecretsecretsecret12";
  request.action = "read";
  request.resource = "docs:1";
  request.client_ip = "10.0.0.1";
  request.arguments_json = R"({"password":"p","page":2})";
  request.request_id = "req-9";
  Decision decision;
  decision.verdict = Verdict::kAllow;
  decision.reason = ReasonCode::kAllowed;
  decision.message = absl::StrCat("allowed for ", request.subject.token);
  decision.agent_id = "agt_b";
  decision.matched_grant = Grant{"perm_1", "agt_a", "docs:*", {"read"}, Effect::kAllow, ""};
  decision.delegation_path = {{"dlg_1", "agt_a", "agt_b"}};

  const DecisionLogRow row = MakeDecisionLogRow(request, decision, absl::Microseconds(250),
                                                absl::FromUnixMicros(1700000000000000));

  EXPECT_EQ(row.decided_at_us, 1700000000000000);
  EXPECT_EQ(row.agent_id, "agt_b");
  EXPECT_EQ(row.verdict, "ALLOW");
  EXPECT_EQ(row.reason, "ALLOWED");
  EXPECT_EQ(row.matched_permission_id, "perm_1");
  EXPECT_EQ(row.arguments_json, R"({"page":2,"password":"[REDACTED]"})");
  EXPECT_EQ(row.latency_us, 250);
  EXPECT_EQ(row.request_id, "req-9");
  EXPECT_EQ(row.message, "allowed for [REDACTED]");
  for (const std::string* field : {&row.arguments_json, &row.message, &row.agent_id,
                                   &row.request_id, &row.delegation_path_json}) {
    EXPECT_THAT(*field, Not(HasSubstr("vdt_"))) << *field;
  }
  absl::StatusOr<std::vector<DelegationHop>> path =
      DelegationPathFromJson(row.delegation_path_json);
  ASSERT_TRUE(path.ok()) << path.status();
  ASSERT_EQ(path->size(), 1u);
  EXPECT_EQ((*path)[0].delegation_id, "dlg_1");
  EXPECT_EQ((*path)[0].from_agent_id, "agt_a");
  EXPECT_EQ((*path)[0].to_agent_id, "agt_b");
}

// A token is a secret wherever the caller put it, not only in the subject (issue 15).
TEST(MakeDecisionLogRowTest, KeepsNoTokenFromAnyOtherField) {
  const std::string token = "vdt_secretsecretsecretsecretsecretsecretsecret12";
  const std::string jwt = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfYSJ9.c2lnbmF0dXJl";
  Request request;
  request.subject.agent_id = "agt_b";
  request.action = "read-" + token;
  request.resource = "/verify/" + jwt;
  request.request_id = "req-" + token;
  request.arguments_json = absl::StrCat(R"({")", jwt, R"(":{"x":1},"page":2})");
  Decision decision;
  decision.verdict = Verdict::kDeny;
  decision.reason = ReasonCode::kNoMatchingPermission;
  decision.message = absl::StrCat("0 grant chains match read on ", request.resource);
  decision.agent_id = "agt_b";

  const DecisionLogRow row = MakeDecisionLogRow(request, decision, absl::Microseconds(1),
                                                absl::FromUnixMicros(1700000000000000));

  EXPECT_EQ(row.action, "read-[REDACTED]");
  EXPECT_EQ(row.resource, "/verify/[REDACTED]");
  EXPECT_EQ(row.request_id, "req-[REDACTED]");
  EXPECT_EQ(row.arguments_json, R"({"[REDACTED]":"[REDACTED]","page":2})");
  EXPECT_EQ(row.message, "0 grant chains match read on /verify/[REDACTED]");
}

TEST(DelegationPathFromJsonTest, RejectsWhatItDidNotWrite) {
  for (const char* json : {"{}", "[1]", R"([{"delegation_id":"d"}])", "not json"}) {
    EXPECT_FALSE(DelegationPathFromJson(json).ok()) << json;
  }
  EXPECT_EQ(DelegationPathToJson({}), "[]");
}

}  // namespace
}  // namespace verdict
