#include "cli/output.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/duration.pb.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/util/time_util.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "proto/enum_names.h"

namespace verdict {
namespace cli {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::util::TimeUtil;

OutputValue MessageValue(const Message& message);

// One value of `field` (the index-th of a repeated one).
OutputValue FieldValue(const Message& message, const FieldDescriptor& field, int index) {
  const Reflection& r = *message.GetReflection();
  const bool repeated = field.is_repeated();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return OutputValue::Number(absl::StrCat(repeated ? r.GetRepeatedInt32(message, &field, index)
                                                       : r.GetInt32(message, &field)));
    case FieldDescriptor::CPPTYPE_UINT32:
      return OutputValue::Number(absl::StrCat(repeated ? r.GetRepeatedUInt32(message, &field, index)
                                                       : r.GetUInt32(message, &field)));
    case FieldDescriptor::CPPTYPE_INT64:
      return OutputValue::Text(absl::StrCat(repeated ? r.GetRepeatedInt64(message, &field, index)
                                                     : r.GetInt64(message, &field)));
    case FieldDescriptor::CPPTYPE_UINT64:
      return OutputValue::Text(absl::StrCat(repeated ? r.GetRepeatedUInt64(message, &field, index)
                                                     : r.GetUInt64(message, &field)));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return OutputValue::Number(absl::StrCat(repeated ? r.GetRepeatedDouble(message, &field, index)
                                                       : r.GetDouble(message, &field)));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return OutputValue::Number(absl::StrCat(repeated ? r.GetRepeatedFloat(message, &field, index)
                                                       : r.GetFloat(message, &field)));
    case FieldDescriptor::CPPTYPE_BOOL:
      return OutputValue::Bool(repeated ? r.GetRepeatedBool(message, &field, index)
                                        : r.GetBool(message, &field));
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int number = repeated ? r.GetRepeatedEnumValue(message, &field, index)
                                  : r.GetEnumValue(message, &field);
      return OutputValue::Text(ShortEnumName(*field.enum_type(), number));
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string text =
          repeated ? r.GetRepeatedString(message, &field, index) : r.GetString(message, &field);
      if (field.type() == FieldDescriptor::TYPE_BYTES) text = absl::Base64Escape(text);
      return OutputValue::Text(std::move(text));
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return MessageValue(repeated ? r.GetRepeatedMessage(message, &field, index)
                                   : r.GetMessage(message, &field));
  }
  return OutputValue();
}

OutputValue MessageValue(const Message& message) {
  const Descriptor& type = *message.GetDescriptor();
  if (type.full_name() == google::protobuf::Timestamp::descriptor()->full_name()) {
    google::protobuf::Timestamp timestamp;
    timestamp.CopyFrom(message);
    return OutputValue::Text(TimeUtil::ToString(timestamp));
  }
  if (type.full_name() == google::protobuf::Duration::descriptor()->full_name()) {
    google::protobuf::Duration duration;
    duration.CopyFrom(message);
    return OutputValue::Text(TimeUtil::ToString(duration));
  }
  const Reflection& r = *message.GetReflection();
  OutputValue record = OutputValue::Record();
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor& field = *type.field(i);
    if (field.is_repeated()) {
      OutputValue list = OutputValue::List();
      for (int j = 0; j < r.FieldSize(message, &field); ++j) {
        list.Add("", FieldValue(message, field, j));
      }
      record.Add(field.name(), std::move(list));
    } else if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE ||
               r.HasField(message, &field)) {
      record.Add(field.name(), FieldValue(message, field, 0));
    }
  }
  return record;
}

bool IsScalar(const OutputValue& value) {
  return value.kind() != OutputValue::Kind::kList && value.kind() != OutputValue::Kind::kRecord;
}

void AppendJson(const OutputValue& value, std::string* out) {
  switch (value.kind()) {
    case OutputValue::Kind::kNull:
      absl::StrAppend(out, "null");
      return;
    case OutputValue::Kind::kBool:
    case OutputValue::Kind::kNumber:
      absl::StrAppend(out, value.scalar());
      return;
    case OutputValue::Kind::kText:
      absl::StrAppend(out, JsonQuote(value.scalar()));
      return;
    case OutputValue::Kind::kList: {
      absl::StrAppend(out, "[");
      bool first = true;
      for (const OutputValue& item : value.items()) {
        if (!first) absl::StrAppend(out, ",");
        first = false;
        AppendJson(item, out);
      }
      absl::StrAppend(out, "]");
      return;
    }
    case OutputValue::Kind::kRecord: {
      absl::StrAppend(out, "{");
      bool first = true;
      for (const auto& [name, field] : value.fields()) {
        if (!first) absl::StrAppend(out, ",");
        first = false;
        absl::StrAppend(out, JsonQuote(name), ":");
        AppendJson(field, out);
      }
      absl::StrAppend(out, "}");
      return;
    }
  }
}

std::string Json(const OutputValue& value) {
  std::string out;
  AppendJson(value, &out);
  return out;
}

// Text a YAML reader would take for something else (a bool, a number, null) is quoted.
bool NeedsQuotes(const std::string& text) {
  if (text.empty()) return true;
  const std::string lower = absl::AsciiStrToLower(text);
  for (const char* word : {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"}) {
    if (lower == word) return true;
  }
  double number = 0;
  if (absl::SimpleAtod(text, &number)) return true;
  if (absl::ascii_isdigit(static_cast<unsigned char>(text[0]))) return true;  // times, 0x1
  // Leading or trailing blanks, or a character that starts YAML syntax.
  if (absl::ascii_isspace(static_cast<unsigned char>(text.front())) ||
      absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    return true;
  }
  return false;
}

void EmitYaml(const OutputValue& value, YAML::Emitter& out) {
  switch (value.kind()) {
    case OutputValue::Kind::kNull:
      out << YAML::Null;
      return;
    case OutputValue::Kind::kBool:
    case OutputValue::Kind::kNumber:
      out << value.scalar();
      return;
    case OutputValue::Kind::kText:
      if (NeedsQuotes(value.scalar())) out << YAML::DoubleQuoted;
      out << value.scalar();
      return;
    case OutputValue::Kind::kList:
      if (value.items().empty()) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const OutputValue& item : value.items()) EmitYaml(item, out);
      out << YAML::EndSeq;
      return;
    case OutputValue::Kind::kRecord:
      if (value.fields().empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [name, field] : value.fields()) {
        out << YAML::Key << name << YAML::Value;
        EmitYaml(field, out);
      }
      out << YAML::EndMap;
      return;
  }
}

// A cell of a table: a scalar's text, a list of scalars joined, anything else as JSON.
std::string Cell(const OutputValue& value) {
  if (IsScalar(value)) return value.scalar();
  if (value.kind() == OutputValue::Kind::kList &&
      std::all_of(value.items().begin(), value.items().end(), IsScalar)) {
    std::vector<std::string> texts;
    for (const OutputValue& item : value.items()) texts.push_back(item.scalar());
    return absl::StrJoin(texts, ", ");
  }
  return Json(value);
}

// A record's fields with nested records' fields brought up ("agent.id"), in order.
void Flatten(const OutputValue& record, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>* cells) {
  for (const auto& [name, field] : record.fields()) {
    const std::string full = prefix.empty() ? name : absl::StrCat(prefix, ".", name);
    if (field.kind() == OutputValue::Kind::kRecord && !field.fields().empty()) {
      Flatten(field, full, cells);
    } else {
      cells->emplace_back(full, Cell(field));
    }
  }
}

// A cell holds one line: a line break in a value would break the table's rows.
std::string OneLine(const std::string& text) {
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else if (c == '\t') {
      line += ' ';
    } else {
      line += c;
    }
  }
  return line;
}

// The width a terminal gives a cell: UTF-8 continuation bytes take none.
size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

}  // namespace

bool ParseOutputFormat(absl::string_view text, OutputFormat* format) {
  if (text == "table") {
    *format = OutputFormat::kTable;
  } else if (text == "json") {
    *format = OutputFormat::kJson;
  } else if (text == "yaml") {
    *format = OutputFormat::kYaml;
  } else {
    return false;
  }
  return true;
}

OutputValue OutputValue::Bool(bool value) {
  OutputValue v;
  v.kind_ = Kind::kBool;
  v.scalar_ = value ? "true" : "false";
  return v;
}

OutputValue OutputValue::Number(std::string digits) {
  OutputValue v;
  v.kind_ = Kind::kNumber;
  v.scalar_ = std::move(digits);
  return v;
}

OutputValue OutputValue::Text(std::string text) {
  OutputValue v;
  v.kind_ = Kind::kText;
  v.scalar_ = std::move(text);
  return v;
}

OutputValue OutputValue::List(std::vector<OutputValue> items) {
  OutputValue v;
  v.kind_ = Kind::kList;
  v.items_ = std::move(items);
  return v;
}

OutputValue OutputValue::Record(std::vector<Field> fields) {
  OutputValue v;
  v.kind_ = Kind::kRecord;
  v.fields_ = std::move(fields);
  return v;
}

OutputValue& OutputValue::Add(std::string name, OutputValue value) {
  if (kind_ == Kind::kList) {
    items_.push_back(std::move(value));
  } else {
    fields_.emplace_back(std::move(name), std::move(value));
  }
  return *this;
}

const OutputValue* OutputValue::Find(absl::string_view name) const {
  for (const auto& [field_name, value] : fields_) {
    if (field_name == name) return &value;
  }
  return nullptr;
}

OutputValue OutputOf(const Message& message) { return MessageValue(message); }

std::string Render(const OutputValue& value, OutputFormat format) {
  switch (format) {
    case OutputFormat::kJson:
      return absl::StrCat(Json(value), "\n");
    case OutputFormat::kYaml: {
      YAML::Emitter out;
      out.SetIndent(2);
      EmitYaml(value, out);
      return absl::StrCat(out.c_str(), "\n");
    }
    case OutputFormat::kTable:
      break;
  }
  if (value.kind() != OutputValue::Kind::kRecord) return absl::StrCat(OneLine(Cell(value)), "\n");
  std::vector<std::pair<std::string, std::string>> cells;
  Flatten(value, "", &cells);
  size_t width = 0;
  for (const auto& [name, cell] : cells) width = std::max(width, DisplayWidth(name));
  std::string out;
  for (const auto& [name, cell] : cells) {
    absl::StrAppend(&out, name, ":", std::string(width - DisplayWidth(name) + 1, ' '),
                    OneLine(cell), "\n");
  }
  return out;
}

std::string RenderTable(const std::vector<OutputValue>& rows) {
  if (rows.empty()) return "";
  std::vector<std::string> columns;
  std::vector<std::vector<std::pair<std::string, std::string>>> flat(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].kind() == OutputValue::Kind::kRecord) {
      Flatten(rows[i], "", &flat[i]);
    } else {
      flat[i].emplace_back("value", Cell(rows[i]));
    }
    for (auto& [name, cell] : flat[i]) {
      cell = OneLine(cell);
      if (std::find(columns.begin(), columns.end(), name) == columns.end()) {
        columns.push_back(name);
      }
    }
  }
  std::vector<std::vector<std::string>> table;
  table.emplace_back();
  for (const std::string& column : columns) table[0].push_back(absl::AsciiStrToUpper(column));
  for (const auto& row : flat) {
    std::vector<std::string> line(columns.size());
    for (const auto& [name, cell] : row) {
      line[std::find(columns.begin(), columns.end(), name) - columns.begin()] = cell;
    }
    table.push_back(std::move(line));
  }
  std::vector<size_t> widths(columns.size(), 0);
  for (const auto& line : table) {
    for (size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], DisplayWidth(line[c]));
  }
  std::string out;
  for (const auto& line : table) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      absl::StrAppend(&text, line[c]);
      if (c + 1 < line.size()) {
        absl::StrAppend(&text, std::string(widths[c] - DisplayWidth(line[c]) + 2, ' '));
      }
    }
    absl::StrAppend(&out, text, "\n");
  }
  return out;
}

}  // namespace cli
}  // namespace verdict
