// The agents' descriptive columns (decision/types.h's VERDICT_AGENT_TEXT_COLUMNS) in verdict.v1's
// messages, found by name through proto reflection: a string field of the message itself
// (Agent.description, CreateAgentRequest.description) or of its `details` (AgentDetails). The
// admin plane's translation (server/proto_convert, server/admin_convert) and `verdict agents
// create` copy every column this way, so a new column needs no code here.
//
//   AgentTextsToProto(agent, *proto);           // verdict.v1.Agent
//   AgentTextsFromProto(request, new_agent);    // verdict.v1.CreateAgentRequest
#ifndef VERDICT_SERVER_AGENT_TEXT_PROTO_H_
#define VERDICT_SERVER_AGENT_TEXT_PROTO_H_

#include <string>

#include "absl/strings/string_view.h"
#include "decision/types.h"
#include "google/protobuf/message.h"

namespace verdict {

// `column`'s text in `message`: "" when unset, or when the message has no such field.
std::string AgentTextOf(const google::protobuf::Message& message, absl::string_view column);

// Sets `column`'s text in `message`; false, changing nothing, when it has no such string field.
bool SetAgentText(google::protobuf::Message& message, absl::string_view column,
                  const std::string& text);

// Every descriptive column of `row` (an Agent, or decision/admin's NewAgent) that is not empty.
template <typename Row>
void AgentTextsToProto(const Row& row, google::protobuf::Message& message) {
  for (const AgentTextColumn<Row>& column : kAgentTextColumns<Row>) {
    const std::string& text = row.*column.member;
    if (!text.empty()) SetAgentText(message, column.name, text);
  }
}

template <typename Row>
void AgentTextsFromProto(const google::protobuf::Message& message, Row& row) {
  for (const AgentTextColumn<Row>& column : kAgentTextColumns<Row>) {
    row.*column.member = AgentTextOf(message, column.name);
  }
}

}  // namespace verdict

#endif  // VERDICT_SERVER_AGENT_TEXT_PROTO_H_
