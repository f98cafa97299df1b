// The SQL that writes SQLite's decision records (store/migrations.cc, version 4: one row per
// agent holding everything a decision reads about it), shared by the migrations' triggers and
// the statements that rebuild a record (store/statements.cc), so that both write the same bytes.
// Each column is a list of records; a record is a fixed number of fields; a field is its length
// in bytes, a colon and its bytes ("6:active"), or "-" for NULL. Permissions carry their seq and
// delegations their rowid first, so the decoder (store/decision_record.h) can restore creation
// order.
//
//   "INSERT INTO decision_records (agent_id, agent, permissions, delegations_into) SELECT a.id, "
//   VERDICT_AGENT_RECORD("a") ", " VERDICT_PERMISSION_RECORDS("a.id") ", "
//   VERDICT_DELEGATION_RECORDS("a.id") " FROM agents a"
#ifndef VERDICT_STORE_DECISION_RECORD_SQL_H_
#define VERDICT_STORE_DECISION_RECORD_SQL_H_

// clang-format off
#define VERDICT_FIELD(x) "ifnull(length(CAST(" x " AS BLOB)) || ':' || " x ", '-')"
#define VERDICT_AGENT_RECORD(row)           \
  VERDICT_FIELD(row ".id") " || "           \
  VERDICT_FIELD(row ".owner") " || "        \
  VERDICT_FIELD(row ".name") " || "         \
  VERDICT_FIELD(row ".kind") " || "         \
  VERDICT_FIELD(row ".status") " || "       \
  VERDICT_FIELD(row ".expires_at") " || "   \
  VERDICT_FIELD(row ".token_prefix") " || " \
  VERDICT_FIELD(row ".created_at") " || "   \
  VERDICT_FIELD(row ".updated_at")
#define VERDICT_PERMISSION_RECORDS(agent_id)                                         \
  "(SELECT ifnull(group_concat("                                                     \
  VERDICT_FIELD("p.seq") " || "                                                      \
  VERDICT_FIELD("p.id") " || "                                                       \
  VERDICT_FIELD("p.agent_id") " || "                                                 \
  VERDICT_FIELD("p.resource") " || "                                                 \
  VERDICT_FIELD("p.actions") " || "                                                  \
  VERDICT_FIELD("p.effect") " || "                                                   \
  VERDICT_FIELD("p.constraints") " || "                                              \
  VERDICT_FIELD("p.created_at") ", ''), '')"                                         \
  " FROM (SELECT * FROM permissions WHERE permissions.agent_id = " agent_id          \
  " ORDER BY seq) p)"
#define VERDICT_DELEGATION_RECORDS(agent_id)                                         \
  "(SELECT ifnull(group_concat("                                                     \
  VERDICT_FIELD("d.link_rowid") " || "                                               \
  VERDICT_FIELD("d.id") " || "                                                       \
  VERDICT_FIELD("d.from_agent_id") " || "                                            \
  VERDICT_FIELD("d.to_agent_id") " || "                                              \
  VERDICT_FIELD("d.permissions") " || "                                              \
  VERDICT_FIELD("d.max_depth") " || "                                                \
  VERDICT_FIELD("d.status") " || "                                                   \
  VERDICT_FIELD("d.expires_at") " || "                                               \
  VERDICT_FIELD("d.created_at") ", ''), '')"                                         \
  " FROM (SELECT rowid AS link_rowid, * FROM delegations"                            \
  " WHERE delegations.to_agent_id = " agent_id " AND delegations.status = 'active'"  \
  " ORDER BY rowid) d)"
// clang-format on

#endif  // VERDICT_STORE_DECISION_RECORD_SQL_H_
