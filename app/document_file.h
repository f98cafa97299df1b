// A YAML or JSON file read as one JSON value, with the line of each field, within bounds: the
// one reader of the files people write for verdict (policy files, app/policy_file.h; policy
// tests, cli/policy_tests.h), so both refuse the same things the same way.
//
// What it refuses, whatever the file: more than `max_bytes`, nesting deeper than `max_depth`,
// more than `max_nodes` values, YAML anchors and aliases (whose expansion is unbounded: the
// "billion laughs"), explicit tags, a key given twice, and a second document. Its errors read
// "<file>:<line>: <problem>".
//
// The format follows the name: ".json" is strict JSON; ".yaml" and ".yml" are YAML (whose flow
// style also starts with '{'); any other name (standard input) is JSON when the text is JSON,
// and YAML otherwise. Unquoted YAML scalars are typed by YAML 1.2's core schema (null, true,
// false, numbers); quoted ones are strings.
//
//   absl::StatusOr<DocumentFile> file = ReadDocumentFile(text, "team.yaml", kLimits);
//   if (!file.ok()) return file.status();   // "team.yaml:3: YAML anchors are not accepted ..."
//   file->Invalid("agents[0].kind", "must be a string");  // "team.yaml:7: agents[0].kind: ..."
#ifndef VERDICT_APP_DOCUMENT_FILE_H_
#define VERDICT_APP_DOCUMENT_FILE_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace verdict {

struct DocumentLimits {
  std::string kind;  // what the file is, in errors: "a policy file"
  size_t max_bytes = 1 << 20;
  int max_depth = 32;
  int64_t max_nodes = 1 << 20;  // scalars, sequences and maps
};

struct DocumentFile {
  std::string file_name;
  JsonValue root;
  // The 1-based line of each value, by path: "" (the whole document), "agents[1]",
  // "agents[1].kind".
  absl::flat_hash_map<std::string, int> lines;

  // The line of the value at `path`, else of its nearest enclosing value.
  int LineOf(absl::string_view path) const;
  // INVALID_ARGUMENT "<file>:<line>: <message>", the line LineOf(path)'s.
  absl::Status ErrorAt(absl::string_view path, absl::string_view message) const;
  // The same with the path in front, "<file>:<line>: <path>: <problem>" (none when it is empty).
  absl::Status Invalid(absl::string_view path, absl::string_view problem) const;
};

// The line of the value at `path` in `lines` (DocumentFile::lines), else of its nearest
// enclosing value ("agents[1].kind", "agents[1]", "agents", ""); 0 when none is known.
int LineOf(const absl::flat_hash_map<std::string, int>& lines, absl::string_view path);

// The document `text` holds; INVALID_ARGUMENT naming the file (and the line, when known) for a
// file that is not YAML or JSON as its name says, or goes past `limits`.
absl::StatusOr<DocumentFile> ReadDocumentFile(absl::string_view text, absl::string_view file_name,
                                              const DocumentLimits& limits);

}  // namespace verdict

#endif  // VERDICT_APP_DOCUMENT_FILE_H_
