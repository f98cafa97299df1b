#include "store/sqlite/sqlite_lookups.h"

#include "store/row_readers.h"

namespace verdict {
namespace {

// The first row's columns into `record`, overwriting its strings in place; false when there is
// no row.
bool ReadFirstDecisionRecord(ScopedStatement& statement, DecisionRecord& record) {
  if (!statement.Step()) return false;
  AssignText(record.agent, statement.TextView(0));
  AssignText(record.permissions, statement.TextView(1));
  AssignText(record.delegations_into, statement.TextView(2));
  return true;
}

}  // namespace

bool LookupDecisionRecord(SqliteConnection& connection, absl::string_view agent_id,
                          DecisionRecord& record) {
  ScopedStatement find = connection.Use(Statement::kFindDecisionRecord);
  find.BindText(1, agent_id);
  return ReadFirstDecisionRecord(find, record);
}

// Asked for the previous token only when no current token matches: one unique-index search
// each, cheaper than one statement with OR.
bool LookupDecisionRecordByTokenHash(SqliteConnection& connection, absl::string_view token_sha256,
                                     absl::Time now, DecisionRecord& record) {
  {
    ScopedStatement current = connection.Use(Statement::kFindDecisionRecordByTokenHash);
    current.BindBlob(1, token_sha256);
    if (ReadFirstDecisionRecord(current, record)) return true;
  }
  ScopedStatement previous = connection.Use(Statement::kFindDecisionRecordByPreviousTokenHash);
  previous.BindBlob(1, token_sha256);
  previous.BindTime(2, now);
  return ReadFirstDecisionRecord(previous, record);
}

}  // namespace verdict
