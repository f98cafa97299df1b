// What `verdict` prints: a command builds its answer once, as an OutputValue (from a protobuf
// answer with OutputOf, or field by field), and the session renders it in the format asked for
// with -o/--output: a table people read (the default), JSON (one document per line) or YAML.
//
// The same in every format: times are RFC 3339 in UTC ("2030-01-01T00:00:00Z"), enum values
// are their short names in upper case, as `check` has always printed them and the options
// accept them in any case ("ALLOW", "DENIED_BY_POLICY", "ACTIVE", "AUTONOMOUS"), and 64-bit
// integers are strings in JSON (as in protobuf's JSON mapping), so no digit is lost.
//
//   OutputValue row = OutputValue::Record();
//   row.Add("name", OutputValue::Text("reads docs")).Add("passed", OutputValue::Bool(true));
//   std::cout << Render({row}, OutputFormat::kTable);  // NAME        PASSED
//                                                      // reads docs  true
//   std::cout << Render(OutputOf(agent), OutputFormat::kJson);  // {"id":"agt_1",...}
#ifndef VERDICT_CLI_OUTPUT_H_
#define VERDICT_CLI_OUTPUT_H_

#include <google/protobuf/message.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace verdict {
namespace cli {

enum class OutputFormat { kTable, kJson, kYaml };

// "table", "json" or "yaml"; false for anything else.
bool ParseOutputFormat(absl::string_view text, OutputFormat* format);

// A value to print: null, a boolean, a number (kept as its digits), text, a list, or a record
// (named fields in the order they were added).
class OutputValue {
 public:
  enum class Kind { kNull, kBool, kNumber, kText, kList, kRecord };
  using Field = std::pair<std::string, OutputValue>;

  OutputValue() = default;  // null
  static OutputValue Bool(bool value);
  static OutputValue Number(std::string digits);  // "3", "-1.5": written as is
  static OutputValue Text(std::string text);
  static OutputValue List(std::vector<OutputValue> items = {});
  static OutputValue Record(std::vector<Field> fields = {});

  // Appends a field to a record, or an item to a list (then `name` is ignored).
  OutputValue& Add(std::string name, OutputValue value);

  Kind kind() const { return kind_; }
  // The text of a bool ("true"), a number or a text; "" otherwise.
  const std::string& scalar() const { return scalar_; }
  const std::vector<OutputValue>& items() const { return items_; }
  const std::vector<Field>& fields() const { return fields_; }
  // A record's field, or nullptr.
  const OutputValue* Find(absl::string_view name) const;

 private:
  Kind kind_ = Kind::kNull;
  std::string scalar_;
  std::vector<OutputValue> items_;
  std::vector<Field> fields_;
};

// A protobuf message as a record, fields in declaration order by their proto names. As in
// protobuf's JSON mapping with every field printed: unset message fields are left out, empty
// scalars and lists kept, Timestamps RFC 3339, Durations "1.5s", 64-bit integers text. Unlike
// it, enum values are short upper-case names (proto/enum_names.h).
OutputValue OutputOf(const google::protobuf::Message& message);

// One document in `format`: JSON on one line; YAML; or, as a table, one "field: value" line per
// field of a record (nested records' fields named "agent.id") or the text of a scalar.
// Ends with a newline.
std::string Render(const OutputValue& value, OutputFormat format);

// Records as a table: a header of their fields' names (upper case), then one row each, in
// columns as wide as their widest cell. Nested records' fields become columns ("agent.id");
// lists of scalars are joined with ", ", other lists written as JSON. Ends with a newline;
// "" for no rows.
std::string RenderTable(const std::vector<OutputValue>& rows);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_OUTPUT_H_
