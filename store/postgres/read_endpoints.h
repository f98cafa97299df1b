// The read endpoints of a PostgreSQL store (--db_read, issue 22): synchronous standbys that may
// serve decisions' read snapshots in the primary's place, each only while store/postgres/
// standby_rules.h says no acknowledged commit can be missing from it.
//
// A thread checks the primary and every endpoint at start and then every check_period, on
// connections of its own (a few catalog reads each). A standby judged usable stays so until two
// periods after the primary was read for that check: a checker that cannot finish its check
// (a frozen server) lets the standby lapse, and reads go to the primary. A read that fails on a
// standby drops it at once, until a later check finds it usable again. Every change (usable, or
// refused and why) is told once to `on_change`: a change of reason (RefusalReason), not of
// message, so a lagging standby's new LSN at every check is not told again.
//
//   ReadEndpoints endpoints(pq, primary_conninfo, options);
//   if (std::optional<ReadEndpoints::Choice> standby = endpoints.Pick()) ... standby->pool ...
//   endpoints.Drop(standby->index, "a read failed");
#ifndef VERDICT_STORE_POSTGRES_READ_ENDPOINTS_H_
#define VERDICT_STORE_POSTGRES_READ_ENDPOINTS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "store/connection_pool.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/standby_rules.h"

namespace verdict {

// Where a process's read snapshots went (the metrics verdictd exports).
struct ReadRouteCounters {
  std::atomic<uint64_t> on_primary{0};
  std::atomic<uint64_t> on_standby{0};
  // Reads that failed on a standby before it answered anything, and ran on the primary instead.
  std::atomic<uint64_t> standby_failures{0};
};

class ReadEndpoints {
 public:
  struct Options {
    std::vector<std::string> conninfos;  // one per standby
    std::vector<std::string> names;      // each as messages name it (no password)
    absl::Duration check_period = absl::Seconds(1);
    // The decision pools' connections, as the primary's.
    PostgresConnectionOptions connection;
    int connections = 4;
    // Told each endpoint's change: "<endpoint>: reads here" or "<endpoint>: refused: <why>".
    std::function<void(bool usable, const std::string& message)> on_change;
  };

  // Starts the checker; its first check runs before the constructor returns, so a usable
  // standby serves the first call.
  ReadEndpoints(const LibPq& pq, std::string primary_conninfo, Options options);
  ReadEndpoints(const ReadEndpoints&) = delete;
  ReadEndpoints& operator=(const ReadEndpoints&) = delete;
  ~ReadEndpoints();

  struct Choice {
    ConnectionPool* pool;
    int index;
  };
  // A standby usable now (round robin among them), or nullopt: read on the primary.
  std::optional<Choice> Pick();
  // Takes endpoint `index` out of reads until a later check finds it usable.
  void Drop(int index, absl::string_view why);
  // Interrupts the calls leased on every standby (Store::AbandonCallsInFlight).
  void BreakLeased();
  // "<endpoint>: reads here" or "<endpoint>: refused: <why>", one line per endpoint.
  std::string Describe();

  // Runs one check now (tests).
  void CheckNow();

 private:
  struct Endpoint {
    std::string conninfo;
    std::string name;  // as messages name it
    std::unique_ptr<ConnectionPool> pool;
    std::unique_ptr<PostgresConnection> checker;  // the checker thread's only
    bool usable_at_previous_check = false;        // the checker thread's only
    std::atomic<int64_t> usable_until_nanos{0};
    // Under ReadEndpoints::mutex_: what was last told, and the last judgement.
    bool told = false;
    std::string last_key;
    std::string last_message;
  };

  void CheckLoop();
  void Check() ABSL_LOCKS_EXCLUDED(mutex_);
  absl::StatusOr<PrimaryFacts> ReadPrimary();
  absl::StatusOr<StandbyFacts> ReadStandby(Endpoint& endpoint);
  absl::StatusOr<PostgresConnection*> CheckerConnection(const std::string& conninfo,
                                                        std::unique_ptr<PostgresConnection>& held);
  void Report(Endpoint& endpoint, const absl::Status& judged) ABSL_LOCKS_EXCLUDED(mutex_);

  const LibPq& pq_;
  const std::string primary_conninfo_;
  Options options_;
  std::vector<std::unique_ptr<Endpoint>> endpoints_;
  std::unique_ptr<PostgresConnection> primary_checker_;
  // The previous check's primary facts, when its quorum held (under check_mutex_).
  std::optional<PrimaryFacts> previous_primary_;
  std::atomic<uint64_t> next_pick_{0};
  absl::Mutex check_mutex_;  // one check at a time
  absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::atomic<bool> stopped_{false};
  std::thread checker_;
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_READ_ENDPOINTS_H_
