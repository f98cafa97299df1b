// When a PostgreSQL standby may serve verdict's decisions without ever answering stale (issue 22,
// store/POSTGRES.md "Reads on synchronous standbys"): the rules, apart from any connection, so
// they are tested on facts alone. store/postgres/read_endpoints.h gathers the facts every second.
//
// A standby may serve reads only when no commit can be acknowledged before that standby applied
// it: the primary's writers commit with synchronous_commit = remote_apply (the server's setting,
// from a server-wide source and not only the checker's session, and not lowered for any role or
// database), synchronous_standby_names makes every commit wait for every standby it lists (FIRST n
// or ANY n with n = the number of names), the standby is listed, connected and synchronous now,
// and it has replayed everything the primary had written one check before (in the steady state;
// at the check that first finds the rule holding, everything the primary had written then).
//
//   absl::StatusOr<SynchronousStandbys> quorum = PrimaryWaitsForEveryListedStandby(primary);
//   absl::Status usable = JudgeStandby(primary, *quorum, standby, required_lsn);
#ifndef VERDICT_STORE_POSTGRES_STANDBY_RULES_H_
#define VERDICT_STORE_POSTGRES_STANDBY_RULES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace verdict {

// synchronous_standby_names, parsed: "FIRST 2 (a, b)", "ANY 1 (a, b)", "2 (a, b)" (FIRST) or
// "a, b" (FIRST 1). Names are compared case-insensitively, as PostgreSQL does.
struct SynchronousStandbys {
  enum class Method { kFirst, kAny };
  Method method = Method::kFirst;
  int count = 0;
  std::vector<std::string> names;  // "*" stands for any standby
};

// INVALID_ARGUMENT for text PostgreSQL would not accept either; an empty list for "".
absl::StatusOr<SynchronousStandbys> ParseSynchronousStandbyNames(absl::string_view text);

// What one check reads on the primary.
struct PrimaryFacts {
  bool in_recovery = false;
  // pg_settings' setting and source for synchronous_commit in the checker's session: only a
  // server-wide source ("configuration file", "command line", ...) is what every writer gets;
  // "user", "database", "client", "session"... is the checker's own (ALTER ROLE verdict SET,
  // options=-c in its conninfo), which says nothing of the other writers.
  std::string synchronous_commit;
  std::string synchronous_commit_source;
  std::string synchronous_standby_names;  // as SHOW gives it
  int64_t lowering_overrides = 0;         // pg_db_role_setting entries setting it otherwise
  int64_t wal_lsn = 0;                    // pg_current_wal_lsn(), as bytes from 0/0
  struct Sender {                         // one row of pg_stat_replication
    std::string name;                     // application_name
    std::string state;                    // "" when the role may not see it
    std::string sync_state;               // "" when the role may not see it
  };
  std::vector<Sender> senders;
};

// What one check reads on a read endpoint.
struct StandbyFacts {
  bool in_recovery = false;
  std::string cluster_name;           // the name its WAL receiver gives the primary
  std::optional<int64_t> replay_lsn;  // pg_last_wal_replay_lsn(), as bytes from 0/0
  std::string receiver_status;        // pg_stat_wal_receiver.status; "" without a receiver
};

// The primary's quorum when every commit it acknowledges has been applied by every standby its
// synchronous_standby_names lists; FAILED_PRECONDITION saying why not otherwise.
absl::StatusOr<SynchronousStandbys> PrimaryWaitsForEveryListedStandby(const PrimaryFacts& primary);

// OK when `standby` may serve reads under `quorum` (from PrimaryWaitsForEveryListedStandby):
// listed, streaming and synchronous now, and replayed up to `required_lsn` (RequiredReplayLsn).
// FAILED_PRECONDITION saying why not otherwise.
absl::Status JudgeStandby(const PrimaryFacts& primary, const SynchronousStandbys& quorum,
                          const StandbyFacts& standby, int64_t required_lsn);

// The WAL position `standby` must have replayed at the check that read `now`. The primary's
// position at the previous check (`previous`, given only when the quorum held then) suffices only
// in the steady state: this standby was judged usable at that check, and the primary's
// synchronous_commit facts and synchronous_standby_names are unchanged since. Otherwise, the
// primary's position now: before the rule held, commits were acknowledged without this standby.
int64_t RequiredReplayLsn(const std::optional<PrimaryFacts>& previous, bool usable_at_previous,
                          const PrimaryFacts& now);

// A refusal: a status of `code` saying `message`, tagged with `reason`, a fixed name of the rule
// branch that refused (messages carry LSNs and states that change at every check; reasons do
// not, so "told once per change" compares reasons).
absl::Status Refusal(absl::StatusCode code, absl::string_view reason, absl::string_view message);
// The reason a refusal was tagged with; "usable" for OK; the status code's name when untagged.
std::string RefusalReason(const absl::Status& judged);

// "0/3000060" for a WAL position, as PostgreSQL writes it.
std::string FormatLsn(int64_t lsn);

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_STANDBY_RULES_H_
