#include "server/agent_text_proto.h"

#include "decision/admin/admin_types.h"
#include "decision/types.h"
#include "gtest/gtest.h"
#include "verdict/v1/admin.pb.h"
#include "verdict/v1/decision.pb.h"

namespace verdict {
namespace {

// Every descriptive column is a field of the API's agent and of its creation request: a column
// declared in decision/types.h without its proto field fails here, not in production.
TEST(AgentTextProtoTest, EveryColumnHasAFieldInAgentAndInCreateAgentRequest) {
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    v1::Agent agent;
    EXPECT_TRUE(SetAgentText(agent, column.name, "x")) << column.name;
    EXPECT_EQ(AgentTextOf(agent, column.name), "x") << column.name;
    v1::CreateAgentRequest request;
    EXPECT_TRUE(SetAgentText(request, column.name, "x")) << column.name;
    EXPECT_EQ(AgentTextOf(request, column.name), "x") << column.name;
  }
}

TEST(AgentTextProtoTest, DescriptionIsTheMessagesOwnField) {
  v1::CreateAgentRequest request;
  ASSERT_TRUE(SetAgentText(request, "description", "files the weekly report"));
  EXPECT_EQ(request.description(), "files the weekly report");
  EXPECT_FALSE(request.has_details());
}

TEST(AgentTextProtoTest, AFieldNoMessageHasIsRefusedAndReadsEmpty) {
  v1::Agent agent;
  EXPECT_FALSE(SetAgentText(agent, "no_such_column", "x"));
  EXPECT_FALSE(SetAgentText(agent, "kind", "x"));  // not a string
  EXPECT_EQ(AgentTextOf(agent, "no_such_column"), "");
  EXPECT_EQ(agent.ByteSizeLong(), 0u);
}

TEST(AgentTextProtoTest, EveryColumnTravelsFromRequestToNewAgentAndFromAgentToProto) {
  v1::CreateAgentRequest request;
  for (const AgentTextColumn<NewAgent>& column : kAgentTextColumns<NewAgent>) {
    SetAgentText(request, column.name, std::string("text of ") + column.name);
  }
  NewAgent created;
  AgentTextsFromProto(request, created);
  Agent agent;
  for (size_t i = 0; i < std::size(kAgentTextColumns<Agent>); ++i) {
    EXPECT_EQ(created.*kAgentTextColumns<NewAgent>[i].member,
              std::string("text of ") + kAgentTextColumns<NewAgent>[i].name);
    agent.*kAgentTextColumns<Agent>[i].member = created.*kAgentTextColumns<NewAgent>[i].member;
  }
  v1::Agent proto;
  AgentTextsToProto(agent, proto);
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    EXPECT_EQ(AgentTextOf(proto, column.name), std::string("text of ") + column.name);
  }
}

// A decision's agent has no descriptive text: nothing is written, not even an empty details.
TEST(AgentTextProtoTest, EmptyColumnsLeaveTheMessageEmpty) {
  v1::Agent proto;
  AgentTextsToProto(Agent{}, proto);
  EXPECT_EQ(proto.ByteSizeLong(), 0u);
  EXPECT_FALSE(proto.has_details());
}

}  // namespace
}  // namespace verdict
