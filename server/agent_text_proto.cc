#include "server/agent_text_proto.h"

#include "google/protobuf/descriptor.h"

namespace verdict {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The message's `details` field, or nullptr when it has none.
const FieldDescriptor* DetailsField(const Descriptor& descriptor) {
  const FieldDescriptor* details = descriptor.FindFieldByName("details");
  if (details == nullptr || details->is_repeated() ||
      details->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
    return nullptr;
  }
  return details;
}

const FieldDescriptor* TextField(const Descriptor& descriptor, absl::string_view column) {
  const FieldDescriptor* field = descriptor.FindFieldByName(std::string(column));
  if (field == nullptr || field->is_repeated() ||
      field->cpp_type() != FieldDescriptor::CPPTYPE_STRING) {
    return nullptr;
  }
  return field;
}

}  // namespace

std::string AgentTextOf(const Message& message, absl::string_view column) {
  if (const FieldDescriptor* own = TextField(*message.GetDescriptor(), column)) {
    return message.GetReflection()->GetString(message, own);
  }
  const FieldDescriptor* details = DetailsField(*message.GetDescriptor());
  if (details == nullptr) return "";
  const Message& inner = message.GetReflection()->GetMessage(message, details);
  const FieldDescriptor* field = TextField(*inner.GetDescriptor(), column);
  return field == nullptr ? "" : inner.GetReflection()->GetString(inner, field);
}

bool SetAgentText(Message& message, absl::string_view column, const std::string& text) {
  if (const FieldDescriptor* own = TextField(*message.GetDescriptor(), column)) {
    message.GetReflection()->SetString(&message, own, text);
    return true;
  }
  const FieldDescriptor* details = DetailsField(*message.GetDescriptor());
  if (details == nullptr) return false;
  const FieldDescriptor* field = TextField(*details->message_type(), column);
  if (field == nullptr) return false;
  Message* inner = message.GetReflection()->MutableMessage(&message, details);
  inner->GetReflection()->SetString(inner, field, text);
  return true;
}

}  // namespace verdict
