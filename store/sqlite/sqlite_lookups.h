// SQLite's own reads: an agent's row of decision_records (store/decision_record.h), read in place
// from the statement into `record`, overwriting its strings; false when there is no such agent.
// By token: its current token, or the previous one still in its grace at `now`. What the SQLite
// store's PolicyView reads. They may throw SQLite::Exception (wrap calls in CatchSqlite).
//
//   DecisionRecord record;
//   bool found = CatchSqlite(c, [&] { return LookupDecisionRecord(c, "agt_1", record); });
#ifndef VERDICT_STORE_SQLITE_SQLITE_LOOKUPS_H_
#define VERDICT_STORE_SQLITE_SQLITE_LOOKUPS_H_

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/decision_record.h"
#include "store/lookups.h"
#include "store/sqlite/sqlite_connection.h"

namespace verdict {

bool LookupDecisionRecord(SqliteConnection& connection, absl::string_view agent_id,
                          DecisionRecord& record);
bool LookupDecisionRecordByTokenHash(SqliteConnection& connection, absl::string_view token_sha256,
                                     absl::Time now, DecisionRecord& record);

}  // namespace verdict

#endif  // VERDICT_STORE_SQLITE_SQLITE_LOOKUPS_H_
