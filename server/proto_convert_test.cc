#include "server/proto_convert.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "decision/engine.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "proto/enum_names.h"

namespace verdict {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

v1::AuthorizeRequest WireRequestForAgent(const std::string& agent_id) {
  v1::AuthorizeRequest wire;
  wire.mutable_subject()->set_agent_id(agent_id);
  wire.set_action("read");
  wire.set_resource("docs:guide:1");
  wire.mutable_context()->set_client_ip("10.1.2.3");
  wire.mutable_context()->set_arguments_json(R"({"page":2})");
  wire.mutable_context()->set_request_id("req-7");
  return wire;
}

// --- Requests ---------------------------------------------------------------------------------

// A decision's grant goes to the caller with its rules but not the secrets they compare against
// (review h42: the matched grant carried the "api_key" a rule's message had hidden).
TEST(DecisionToProtoTest, TheCallerSeesNoSecretARuleComparesAgainst) {
  Decision decision;
  decision.verdict = Verdict::kDeny;
  decision.reason = ReasonCode::kArgumentsRejected;
  Grant& grant = decision.matched_grant.emplace();
  grant.permission_id = "perm_pay";
  grant.constraints_json =
      R"({"arguments":[{"path":"api_key","equals":"sk-live-SECRET123"},{"path":"n","max":5}]})";
  v1::AuthorizeResponse wire;
  DecisionToProto(decision, &wire);
  EXPECT_EQ(wire.matched_grant().constraints_json(),
            R"({"arguments":[{"equals":"[REDACTED]","path":"api_key"},{"max":5,"path":"n"}]})");
}

TEST(RequestFromProtoTest, CopiesEveryFieldOfAnAgentIdRequest) {
  absl::StatusOr<Request> request = RequestFromProto(WireRequestForAgent("agt_reader"));
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->subject.agent_id, "agt_reader");
  EXPECT_EQ(request->subject.token, "");
  EXPECT_EQ(request->action, "read");
  EXPECT_EQ(request->resource, "docs:guide:1");
  EXPECT_EQ(request->client_ip, "10.1.2.3");
  EXPECT_EQ(request->arguments_json, R"({"page":2})");
  EXPECT_EQ(request->request_id, "req-7");
}

TEST(RequestFromProtoTest, TokenSubjectFillsOnlyTheToken) {
  v1::AuthorizeRequest wire = WireRequestForAgent("ignored");
  wire.mutable_subject()->set_token("vdt_abc");
  absl::StatusOr<Request> request = RequestFromProto(wire);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->subject.token, "vdt_abc");
  EXPECT_EQ(request->subject.agent_id, "");
}

TEST(RequestFromProtoTest, TheDpopProofAndItsHttpRequestGoWithTheSubject) {
  v1::AuthorizeRequest wire = WireRequestForAgent("ignored");
  wire.mutable_subject()->set_token("eyJh.eyJz.c2ln");
  wire.mutable_context()->set_dpop_proof("eyJ0.eyJq.c2ln");
  wire.mutable_context()->set_http_method("POST");
  wire.mutable_context()->set_http_uri("https://api.example/v1/docs");
  absl::StatusOr<Request> request = RequestFromProto(wire);
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(request->subject.dpop.proof, "eyJ0.eyJq.c2ln");
  EXPECT_EQ(request->subject.dpop.http_method, "POST");
  EXPECT_EQ(request->subject.dpop.http_uri, "https://api.example/v1/docs");

  v1::ValidateTokenRequest validate;
  validate.set_token("eyJh.eyJz.c2ln");
  validate.set_dpop_proof("eyJ0.eyJq.c2ln");
  validate.set_http_method("GET");
  validate.set_http_uri("https://api.example/v1/me");
  const DpopEvidence evidence = DpopEvidenceFromProto(validate);
  EXPECT_EQ(evidence.proof, "eyJ0.eyJq.c2ln");
  EXPECT_EQ(evidence.http_method, "GET");
  EXPECT_EQ(evidence.http_uri, "https://api.example/v1/me");
}

TEST(RequestFromProtoTest, MissingSubjectIsInvalidArgument) {
  v1::AuthorizeRequest no_subject = WireRequestForAgent("agt_reader");
  no_subject.clear_subject();
  v1::AuthorizeRequest empty_subject = WireRequestForAgent("agt_reader");
  empty_subject.mutable_subject()->clear_kind();
  for (const v1::AuthorizeRequest& wire : {no_subject, empty_subject}) {
    const absl::Status status = RequestFromProto(wire).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(status.message()), HasSubstr("subject"));
  }
}

// Every check may bring its own arguments: the context's must be well-formed all the same, and
// are named as the context's, not as some check's (review h36).
TEST(BatchRequestFromProtoTest, MalformedContextArgumentsAreRefusedEvenWhenEveryCheckHasItsOwn) {
  v1::BatchAuthorizeRequest wire;
  wire.mutable_subject()->set_agent_id("agt_reader");
  wire.mutable_context()->set_arguments_json("{");
  v1::BatchCheck* check = wire.add_checks();
  check->set_action("read");
  check->set_resource("docs:1");
  check->set_arguments_json("{}");
  const absl::Status status = BatchRequestFromProto(wire).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("context: arguments_json: "));
  wire.mutable_context()->set_arguments_json("[1]");
  EXPECT_EQ(BatchRequestFromProto(wire).status().message(),
            "context: arguments_json: must be a JSON object");
}

TEST(BatchRequestFromProtoTest, EveryCheckSharesTheSubjectAndContext) {
  v1::BatchAuthorizeRequest wire;
  wire.mutable_subject()->set_agent_id("agt_reader");
  wire.mutable_context()->set_client_ip("::1");
  wire.mutable_context()->set_arguments_json(R"({"a":1})");
  wire.mutable_context()->set_request_id("batch-1");
  v1::BatchCheck* first = wire.add_checks();
  first->set_action("read");
  first->set_resource("docs:1");
  v1::BatchCheck* second = wire.add_checks();
  second->set_action("write");
  second->set_resource("/api/docs/2");
  second->set_arguments_json(R"({"b":2})");

  absl::StatusOr<BatchRequest> batch = BatchRequestFromProto(wire);
  ASSERT_TRUE(batch.ok()) << batch.status();
  EXPECT_EQ(batch->subject.agent_id, "agt_reader");
  EXPECT_EQ(batch->client_ip, "::1");
  EXPECT_EQ(batch->request_id, "batch-1");
  EXPECT_EQ(batch->arguments_json, R"({"a":1})");
  ASSERT_EQ(batch->checks.size(), 2u);
  EXPECT_EQ(batch->checks[0].action, "read");
  EXPECT_EQ(batch->checks[0].resource, "docs:1");
  EXPECT_EQ(batch->checks[0].arguments_json, "") << "no override: the context's";
  EXPECT_EQ(batch->checks[1].action, "write");
  EXPECT_EQ(batch->checks[1].resource, "/api/docs/2");
  EXPECT_EQ(batch->checks[1].arguments_json, R"({"b":2})") << "the check's own replaces it";
}

TEST(BatchRequestFromProtoTest, MissingSubjectIsInvalidArgument) {
  v1::BatchAuthorizeRequest wire;
  wire.add_checks()->set_action("read");
  EXPECT_EQ(BatchRequestFromProto(wire).status().code(), absl::StatusCode::kInvalidArgument);
}

// --- Decisions --------------------------------------------------------------------------------

TEST(DecisionToProtoTest, CarriesEveryField) {
  Decision decision;
  decision.verdict = Verdict::kNeedsApproval;
  decision.reason = ReasonCode::kApprovalRequired;
  decision.message = "approval apr_1 is pending";
  decision.agent_id = "agt_child";
  decision.matched_grant = Grant{"perm_1",         "agt_parent",   "docs:*",
                                 {"read", "list"}, Effect::kAllow, R"({"approval":{"quorum":2}})"};
  decision.delegation_path = {{"dlg_1", "agt_parent", "agt_child"}};
  decision.approval_request_id = "apr_1";
  decision.request_id = "req-9";
  decision.side_effects.approval_to_use = "apr_0";

  v1::AuthorizeResponse wire;
  DecisionToProto(decision, &wire);
  EXPECT_EQ(wire.verdict(), v1::VERDICT_NEEDS_APPROVAL);
  EXPECT_EQ(wire.reason(), v1::REASON_CODE_APPROVAL_REQUIRED);
  EXPECT_EQ(wire.message(), "approval apr_1 is pending");
  EXPECT_EQ(wire.agent_id(), "agt_child");
  ASSERT_TRUE(wire.has_matched_grant());
  EXPECT_EQ(wire.matched_grant().permission_id(), "perm_1");
  EXPECT_EQ(wire.matched_grant().owner_agent_id(), "agt_parent");
  EXPECT_EQ(wire.matched_grant().resource(), "docs:*");
  EXPECT_THAT(wire.matched_grant().actions(), ElementsAre("read", "list"));
  EXPECT_EQ(wire.matched_grant().effect(), v1::EFFECT_ALLOW);
  EXPECT_EQ(wire.matched_grant().constraints_json(), R"({"approval":{"quorum":2}})");
  ASSERT_EQ(wire.delegation_path_size(), 1);
  EXPECT_EQ(wire.delegation_path(0).delegation_id(), "dlg_1");
  EXPECT_EQ(wire.delegation_path(0).from_agent_id(), "agt_parent");
  EXPECT_EQ(wire.delegation_path(0).to_agent_id(), "agt_child");
  EXPECT_EQ(wire.approval_request_id(), "apr_1");
  EXPECT_EQ(wire.request_id(), "req-9");
}

TEST(DecisionToProtoTest, NoMatchedGrantLeavesTheFieldUnset) {
  Decision decision;
  decision.verdict = Verdict::kDeny;
  decision.reason = ReasonCode::kNoMatchingPermission;
  v1::AuthorizeResponse wire;
  DecisionToProto(decision, &wire);
  EXPECT_FALSE(wire.has_matched_grant());
  EXPECT_EQ(wire.verdict(), v1::VERDICT_DENY);
}

// The engine's names (decision/types.h: the logs, the metrics) are the proto's values without
// their type's prefix (VERDICT_ALLOW is ALLOW).
TEST(DecisionToProtoTest, EveryVerdictAndReasonKeepsItsName) {
  for (Verdict verdict : {Verdict::kAllow, Verdict::kDeny, Verdict::kNeedsApproval}) {
    Decision decision;
    decision.verdict = verdict;
    v1::AuthorizeResponse wire;
    DecisionToProto(decision, &wire);
    EXPECT_EQ(ShortEnumName(wire.verdict()), VerdictName(verdict));
  }
  for (ReasonCode reason :
       {ReasonCode::kAllowed, ReasonCode::kAgentNotFound, ReasonCode::kAgentSuspended,
        ReasonCode::kAgentRevoked, ReasonCode::kAgentExpired, ReasonCode::kTokenInvalid,
        ReasonCode::kDeniedByPolicy, ReasonCode::kNoMatchingPermission,
        ReasonCode::kOutsideTimeWindow, ReasonCode::kIpNotAllowed, ReasonCode::kArgumentsRejected,
        ReasonCode::kApprovalRequired, ReasonCode::kApprovalDenied, ReasonCode::kRateLimited,
        ReasonCode::kTooManyPendingApprovals}) {
    Decision decision;
    decision.reason = reason;
    v1::AuthorizeResponse wire;
    DecisionToProto(decision, &wire);
    EXPECT_EQ(ShortEnumName(wire.reason()), ReasonCodeName(reason));
  }
}

TEST(TokenValidationToProtoTest, CarriesTheAgentAndItsEffectivePermissions) {
  TokenValidation validation;
  validation.valid = true;
  validation.reason = ReasonCode::kAllowed;
  validation.message = "token of agt_child";
  Agent agent;
  agent.id = "agt_child";
  agent.owner = "alice@example.com";
  agent.name = "child";
  agent.kind = AgentKind::kDelegated;
  agent.status = AgentStatus::kActive;
  agent.token_prefix = "vdt_AbCdEfGh";
  agent.created_at = absl::FromUnixSeconds(1700000000);
  agent.updated_at = absl::FromUnixSeconds(1700000100) + absl::Milliseconds(5);
  validation.agent = agent;
  validation.permissions.push_back(
      {Grant{"perm_own", "agt_child", "docs:*", {"read"}, Effect::kAllow, ""}, {}});
  validation.permissions.push_back(
      {Grant{"dlg_1#0", "agt_parent", "wiki:*", {"*"}, Effect::kAllow, ""},
       {{"dlg_1", "agt_parent", "agt_child"}},
       {Grant{"perm_parent", "agt_parent", "wiki:public:*", {"read"}, Effect::kAllow, ""}},
       {Grant{"perm_parent_deny", "agt_parent", "wiki:public:x", {"*"}, Effect::kDeny, ""}}});
  validation.permissions_truncated = true;

  v1::ValidateTokenResponse wire;
  TokenValidationToProto(validation, &wire);
  EXPECT_TRUE(wire.valid());
  EXPECT_EQ(wire.reason(), v1::REASON_CODE_ALLOWED);
  EXPECT_EQ(wire.message(), "token of agt_child");
  EXPECT_EQ(wire.agent().id(), "agt_child");
  EXPECT_EQ(wire.agent().owner(), "alice@example.com");
  EXPECT_EQ(wire.agent().name(), "child");
  EXPECT_EQ(wire.agent().kind(), v1::AGENT_KIND_DELEGATED);
  EXPECT_EQ(wire.agent().status(), v1::AGENT_STATUS_ACTIVE);
  EXPECT_EQ(wire.agent().token_prefix(), "vdt_AbCdEfGh");
  EXPECT_FALSE(wire.agent().has_expires_at()) << "never expires: no timestamp";
  EXPECT_EQ(wire.agent().created_at().seconds(), 1700000000);
  EXPECT_EQ(wire.agent().updated_at().seconds(), 1700000100);
  EXPECT_EQ(wire.agent().updated_at().nanos(), 5000000);
  ASSERT_EQ(wire.permissions_size(), 2);
  EXPECT_EQ(wire.permissions(0).grant().permission_id(), "perm_own");
  EXPECT_EQ(wire.permissions(0).via_size(), 0);
  EXPECT_EQ(wire.permissions(1).grant().owner_agent_id(), "agt_parent");
  ASSERT_EQ(wire.permissions(1).via_size(), 1);
  EXPECT_EQ(wire.permissions(1).via(0).delegation_id(), "dlg_1");
  ASSERT_EQ(wire.permissions(1).within_size(), 1);
  EXPECT_EQ(wire.permissions(1).within(0).permission_id(), "perm_parent");
  EXPECT_EQ(wire.permissions(1).within(0).resource(), "wiki:public:*");
  ASSERT_EQ(wire.permissions(1).excluded_by_size(), 1);
  EXPECT_EQ(wire.permissions(1).excluded_by(0).effect(), v1::EFFECT_DENY);
  EXPECT_EQ(wire.permissions(1).excluded_by(0).resource(), "wiki:public:x");
  EXPECT_TRUE(wire.permissions_truncated());
}

TEST(TokenValidationToProtoTest, AnAnswerOverItsBudgetSaysEvaluationLimit) {
  TokenValidation validation;
  validation.reason = ReasonCode::kEvaluationLimit;
  v1::ValidateTokenResponse wire;
  TokenValidationToProto(validation, &wire);
  EXPECT_FALSE(wire.valid());
  EXPECT_EQ(wire.reason(), v1::REASON_CODE_EVALUATION_LIMIT);
}

TEST(TokenValidationToProtoTest, AgentStatesAndKindsKeepTheirNames) {
  struct Case {
    AgentKind kind;
    AgentStatus status;
    v1::AgentKind wire_kind;
    v1::AgentStatus wire_status;
  };
  const Case cases[] = {
      {AgentKind::kAutonomous, AgentStatus::kActive, v1::AGENT_KIND_AUTONOMOUS,
       v1::AGENT_STATUS_ACTIVE},
      {AgentKind::kDelegated, AgentStatus::kSuspended, v1::AGENT_KIND_DELEGATED,
       v1::AGENT_STATUS_SUSPENDED},
      {AgentKind::kService, AgentStatus::kRevoked, v1::AGENT_KIND_SERVICE,
       v1::AGENT_STATUS_REVOKED},
  };
  for (const Case& c : cases) {
    TokenValidation validation;
    validation.agent = Agent{};
    validation.agent->kind = c.kind;
    validation.agent->status = c.status;
    validation.agent->expires_at = absl::FromUnixSeconds(1800000000);
    v1::ValidateTokenResponse wire;
    TokenValidationToProto(validation, &wire);
    EXPECT_EQ(wire.agent().kind(), c.wire_kind);
    EXPECT_EQ(wire.agent().status(), c.wire_status);
    EXPECT_EQ(wire.agent().expires_at().seconds(), 1800000000);
  }
}

TEST(TokenValidationToProtoTest, InvalidTokenHasNoAgent) {
  TokenValidation validation;
  validation.valid = false;
  validation.reason = ReasonCode::kTokenInvalid;
  validation.message = "unknown token";
  v1::ValidateTokenResponse wire;
  TokenValidationToProto(validation, &wire);
  EXPECT_FALSE(wire.valid());
  EXPECT_EQ(wire.reason(), v1::REASON_CODE_TOKEN_INVALID);
  EXPECT_FALSE(wire.has_agent());
}

TEST(SimulationToProtoTest, CarriesTheDecisionAndEveryTraceEntry) {
  Simulation simulation;
  simulation.decision.verdict = Verdict::kDeny;
  simulation.decision.reason = ReasonCode::kDeniedByPolicy;
  simulation.trace.stages = {{"subject", true, "agt_reader is active"},
                             {"effects", false, "deny perm_2 matches"}};
  GrantTrial trial;
  trial.grant = Grant{"perm_2", "agt_reader", "docs:secret:*", {"read"}, Effect::kDeny, ""};
  trial.path = {{"dlg_9", "agt_a", "agt_reader"}};
  trial.resource_matched = true;
  trial.action_matched = false;
  trial.outcome = ReasonCode::kNoMatchingPermission;
  trial.detail = "action write not in [read]";
  simulation.trace.grants = {trial};

  v1::SimulateResponse wire;
  SimulationToProto(simulation, &wire);
  EXPECT_EQ(wire.decision().reason(), v1::REASON_CODE_DENIED_BY_POLICY);
  ASSERT_EQ(wire.trace().stages_size(), 2);
  EXPECT_EQ(wire.trace().stages(0).name(), "subject");
  EXPECT_TRUE(wire.trace().stages(0).passed());
  EXPECT_EQ(wire.trace().stages(1).detail(), "deny perm_2 matches");
  EXPECT_FALSE(wire.trace().stages(1).passed());
  ASSERT_EQ(wire.trace().grants_size(), 1);
  const v1::GrantTrial& wire_trial = wire.trace().grants(0);
  EXPECT_EQ(wire_trial.grant().effect(), v1::EFFECT_DENY);
  EXPECT_EQ(wire_trial.path(0).delegation_id(), "dlg_9");
  EXPECT_TRUE(wire_trial.resource_matched());
  EXPECT_FALSE(wire_trial.action_matched());
  EXPECT_EQ(wire_trial.outcome(), v1::REASON_CODE_NO_MATCHING_PERMISSION);
  EXPECT_EQ(wire_trial.detail(), "action write not in [read]");
}

// --- What-if ----------------------------------------------------------------------------------

v1::PermissionSpec Spec(const std::string& resource, std::vector<std::string> actions,
                        v1::Effect effect, const std::string& constraints_json = "") {
  v1::PermissionSpec spec;
  spec.set_resource(resource);
  for (const std::string& action : actions) spec.add_actions(action);
  spec.set_effect(effect);
  spec.set_constraints_json(constraints_json);
  return spec;
}

TEST(WhatIfFromProtoTest, EmptyWhatIfChangesNothing) {
  absl::StatusOr<WhatIf> what_if = WhatIfFromProto(v1::WhatIf());
  ASSERT_TRUE(what_if.ok()) << what_if.status();
  EXPECT_TRUE(what_if->empty());
}

TEST(WhatIfFromProtoTest, CarriesEveryInput) {
  v1::WhatIf wire;
  wire.mutable_at()->set_seconds(1700000000);
  wire.mutable_at()->set_nanos(250);
  wire.set_client_ip("2001:db8::7");
  *wire.add_extra_permissions() = Spec("docs:*", {"read"}, v1::EFFECT_ALLOW,
                                       R"({"rate_limit":{"max_calls":5,"window_seconds":60}})");
  *wire.add_extra_permissions() = Spec("docs:secret:*", {"*"}, v1::EFFECT_DENY);
  v1::DelegationSpec* delegation = wire.add_extra_delegations();
  delegation->set_from_agent_id("agt_parent");
  delegation->set_to_agent_id("agt_child");
  *delegation->add_permissions() = Spec("/api/**", {"GET"}, v1::EFFECT_UNSPECIFIED);
  delegation->set_max_depth(3);
  delegation->mutable_expires_at()->set_seconds(1800000000);
  wire.add_removed_delegation_ids("dlg_old");

  absl::StatusOr<WhatIf> what_if = WhatIfFromProto(wire);
  ASSERT_TRUE(what_if.ok()) << what_if.status();
  EXPECT_EQ(what_if->at, absl::FromUnixSeconds(1700000000) + absl::Nanoseconds(250));
  EXPECT_EQ(what_if->client_ip, "2001:db8::7");
  ASSERT_EQ(what_if->extra_permissions.size(), 2u);
  EXPECT_EQ(what_if->extra_permissions[0].resource, "docs:*");
  EXPECT_THAT(what_if->extra_permissions[0].actions, ElementsAre("read"));
  EXPECT_EQ(what_if->extra_permissions[0].effect, Effect::kAllow);
  EXPECT_EQ(what_if->extra_permissions[0].constraints_json,
            R"({"rate_limit":{"max_calls":5,"window_seconds":60}})");
  EXPECT_EQ(what_if->extra_permissions[1].effect, Effect::kDeny);
  ASSERT_EQ(what_if->extra_delegations.size(), 1u);
  const Delegation& link = what_if->extra_delegations[0];
  EXPECT_EQ(link.from_agent_id, "agt_parent");
  EXPECT_EQ(link.to_agent_id, "agt_child");
  EXPECT_EQ(link.max_depth, 3);
  EXPECT_EQ(link.status, DelegationStatus::kActive);
  EXPECT_EQ(link.expires_at, absl::FromUnixSeconds(1800000000));
  ASSERT_EQ(link.permissions.size(), 1u);
  EXPECT_EQ(link.permissions[0].resource, "/api/**");
  EXPECT_THAT(link.permissions[0].actions, ElementsAre("GET"));
  EXPECT_THAT(what_if->removed_delegation_ids, ElementsAre("dlg_old"));
}

TEST(WhatIfFromProtoTest, DelegationDefaultsToOneLinkThatNeverExpires) {
  v1::WhatIf wire;
  v1::DelegationSpec* delegation = wire.add_extra_delegations();
  delegation->set_from_agent_id("agt_parent");
  delegation->set_to_agent_id("agt_child");
  *delegation->add_permissions() = Spec("docs:*", {"read"}, v1::EFFECT_ALLOW);
  absl::StatusOr<WhatIf> what_if = WhatIfFromProto(wire);
  ASSERT_TRUE(what_if.ok()) << what_if.status();
  EXPECT_EQ(what_if->extra_delegations[0].max_depth, 1);
  EXPECT_EQ(what_if->extra_delegations[0].expires_at, absl::InfiniteFuture());
}

TEST(WhatIfFromProtoTest, RejectsWhatCouldNeverBeStored) {
  struct Case {
    const char* name;
    std::function<void(v1::WhatIf&)> spoil;
    const char* field;  // the message must name it
  };
  auto delegation = [](v1::WhatIf& wire) {
    v1::DelegationSpec* link = wire.add_extra_delegations();
    link->set_from_agent_id("agt_parent");
    link->set_to_agent_id("agt_child");
    *link->add_permissions() = Spec("docs:*", {"read"}, v1::EFFECT_ALLOW);
    return link;
  };
  const Case cases[] = {
      {"unknown effect",
       [](v1::WhatIf& w) {
         *w.add_extra_permissions() = Spec("docs:*", {"read"}, static_cast<v1::Effect>(99));
       },
       "extra_permissions[0].effect"},
      {"unspecified effect",
       [](v1::WhatIf& w) {
         *w.add_extra_permissions() = Spec("docs:*", {"read"}, v1::EFFECT_UNSPECIFIED);
       },
       "extra_permissions[0].effect"},
      {"empty resource",
       [](v1::WhatIf& w) { *w.add_extra_permissions() = Spec("", {"read"}, v1::EFFECT_ALLOW); },
       "extra_permissions[0].resource"},
      {"no actions",
       [](v1::WhatIf& w) { *w.add_extra_permissions() = Spec("docs:*", {}, v1::EFFECT_ALLOW); },
       "extra_permissions[0].actions"},
      {"bad action name",
       [](v1::WhatIf& w) {
         *w.add_extra_permissions() = Spec("docs:*", {"read", "re ad"}, v1::EFFECT_ALLOW);
       },
       "extra_permissions[0].actions[1]"},
      {"unknown constraint",
       [](v1::WhatIf& w) {
         *w.add_extra_permissions() =
             Spec("docs:*", {"read"}, v1::EFFECT_ALLOW, R"({"tiem_window":{}})");
       },
       "extra_permissions[0].constraints_json"},
      {"client ip not an address", [](v1::WhatIf& w) { w.set_client_ip("10.0.0.300"); },
       "what_if.client_ip"},
      {"at beyond year 9999", [](v1::WhatIf& w) { w.mutable_at()->set_seconds(253402300800); },
       "what_if.at"},
      {"at with negative nanos", [](v1::WhatIf& w) { w.mutable_at()->set_nanos(-1); },
       "what_if.at"},
      {"delegation lends a deny",
       [&](v1::WhatIf& w) { delegation(w)->mutable_permissions(0)->set_effect(v1::EFFECT_DENY); },
       "extra_delegations[0].permissions[0].effect"},
      {"delegation lends an unknown effect",
       [&](v1::WhatIf& w) {
         delegation(w)->mutable_permissions(0)->set_effect(static_cast<v1::Effect>(7));
       },
       "extra_delegations[0].permissions[0].effect"},
      {"delegation without a delegate", [&](v1::WhatIf& w) { delegation(w)->clear_to_agent_id(); },
       "extra_delegations[0]"},
      {"delegation lends nothing", [&](v1::WhatIf& w) { delegation(w)->clear_permissions(); },
       "extra_delegations[0].permissions"},
      {"delegation deeper than the engine follows",
       [&](v1::WhatIf& w) { delegation(w)->set_max_depth(kMaxDelegationDepth + 1); },
       "extra_delegations[0].max_depth"},
      {"delegation expiry out of range",
       [&](v1::WhatIf& w) { delegation(w)->mutable_expires_at()->set_nanos(1000000000); },
       "extra_delegations[0].expires_at"},
      {"too many extra permissions",
       [](v1::WhatIf& w) {
         for (size_t i = 0; i <= kMaxWhatIfEntries; ++i) {
           *w.add_extra_permissions() = Spec("docs:*", {"read"}, v1::EFFECT_ALLOW);
         }
       },
       "what_if.extra_permissions"},
      {"too many removed delegations",
       [](v1::WhatIf& w) {
         for (size_t i = 0; i <= kMaxWhatIfEntries; ++i) w.add_removed_delegation_ids("dlg_x");
       },
       "what_if.removed_delegation_ids"},
  };
  for (const Case& c : cases) {
    v1::WhatIf wire;
    c.spoil(wire);
    const absl::Status status = WhatIfFromProto(wire).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.field)) << c.name << ": " << status;
  }
}

// --- Timestamps -------------------------------------------------------------------------------

TEST(TimestampTest, RoundTripsEveryRepresentableTime) {
  const absl::Time times[] = {
      absl::UnixEpoch(),
      absl::FromUnixSeconds(1700000000) + absl::Nanoseconds(123456789),
      absl::FromUnixSeconds(-1) + absl::Nanoseconds(1),                    // just before the epoch
      absl::FromUnixSeconds(-62135596800),                                 // 0001-01-01T00:00:00Z
      absl::FromUnixSeconds(253402300799) + absl::Nanoseconds(999999999),  // end of 9999
  };
  for (absl::Time time : times) {
    const google::protobuf::Timestamp wire = TimeToProto(time);
    EXPECT_GE(wire.nanos(), 0);
    EXPECT_LT(wire.nanos(), 1000000000);
    absl::StatusOr<absl::Time> back = TimeFromProto(wire);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, time) << absl::FormatTime(time);
  }
}

TEST(TimestampTest, TimeBeforeTheEpochHasPositiveNanos) {
  const google::protobuf::Timestamp wire =
      TimeToProto(absl::UnixEpoch() - absl::Milliseconds(1500));
  EXPECT_EQ(wire.seconds(), -2);
  EXPECT_EQ(wire.nanos(), 500000000);
}

TEST(TimestampTest, RejectsTimestampsOutsideTheProtoRange) {
  struct Case {
    int64_t seconds;
    int32_t nanos;
  };
  for (const Case& c :
       {Case{-62135596801, 0}, Case{253402300800, 0}, Case{0, -1}, Case{0, 1000000000}}) {
    google::protobuf::Timestamp wire;
    wire.set_seconds(c.seconds);
    wire.set_nanos(c.nanos);
    EXPECT_EQ(TimeFromProto(wire).status().code(), absl::StatusCode::kInvalidArgument)
        << c.seconds << "s " << c.nanos << "ns";
  }
}

}  // namespace
}  // namespace verdict
