// One PostgreSQL connection with its prepared statements, used by one thread at a time (the pool
// in store/connection_pool.h hands it out).
//
// Each statement of store/statements.h is prepared once per connection, on first use, and then
// executed with binary parameters and binary results (no parsing of numbers, no text escaping,
// no truncation at a NUL byte). Nothing here throws. Errors are UNAVAILABLE when the server cannot
// be used right now (it is unreachable, shutting down, out of connections, read-only, a lock or
// statement timed out) and INTERNAL otherwise, with the server's message; a connection that lost
// its server is marked broken, and the pool closes it instead of reusing it.
#ifndef VERDICT_STORE_POSTGRES_POSTGRES_CONNECTION_H_
#define VERDICT_STORE_POSTGRES_POSTGRES_CONNECTION_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "store/connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/statements.h"

namespace verdict {

// Transaction-scoped advisory locks, so verdict's locks cannot collide with an application's
// that shares the database: pg_advisory_xact_lock(kPgLockSpace, key), where the key is a hash of
// the lock's number and the schema the connection works in (PgAdvisoryLockSql). Advisory locks
// belong to the whole database, not to a schema: keyed by number alone, every verdict store kept
// in one database (one schema each) would wait for the others' writers, and a writer held open
// in one (a slow import, a frozen client) would time out the admin writes of all the others.
inline constexpr int kPgLockSpace = 0x76726463;  // "vrdc"
enum class PgLock {
  // Held while migrating: one process migrates, the others wait and then find it done.
  kMigration = 1,
  // Held by every write transaction, as SQLite's BEGIN IMMEDIATE takes its one write lock: the
  // writes that read before they write (rate limits, delegation cycles, votes) stay exact across
  // every sidecar on the schema.
  kWriter = 2,
  // Held by every decision log append, so the appends of every sidecar form one chain; apart
  // from the writers' lock, so logging never waits for a policy write or delays one.
  kDecisionLog = 3,
};
// The statement that takes `lock` for the current transaction, in the schema the connection's
// search_path names (its first schema that exists; '' when none does, where verdict's tables
// cannot be created either). Two keys collide only by chance of the hash, which makes two
// schemas' writers wait for each other and nothing worse.
std::string PgAdvisoryLockSql(PgLock lock);

struct PostgresConnectionOptions {
  // How long a statement waits for a lock (the writers' lock, a row lock) before UNAVAILABLE.
  absl::Duration lock_timeout = absl::Seconds(5);
  // How long one statement may run before UNAVAILABLE: a stuck server must not hold a call.
  absl::Duration statement_timeout = absl::Seconds(10);
  // How long opening a connection may take.
  absl::Duration connect_timeout = absl::Seconds(5);
};

// The rows of one statement; frees them when destroyed.
class PgResult {
 public:
  PgResult(const LibPq& pq, PGresult* result) : pq_(&pq), result_(result) {}
  PgResult(PgResult&& other) noexcept;
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  ~PgResult();

  int size() const;
  int columns() const;
  // PGRES_FATAL_ERROR when libpq returned no result (out of memory, connection lost).
  ExecStatusType status() const;
  const PGresult* raw() const { return result_; }
  // The rows an INSERT, UPDATE or DELETE changed.
  int64_t changed_rows() const;

 private:
  const LibPq* pq_;
  PGresult* result_;
};

class PostgresConnection final : public Connection {
 public:
  // Connects with `conninfo` (a postgresql:// URL or key=value pairs) and applies `options`.
  // UNAVAILABLE when the server cannot be reached or refuses the connection, when it has not
  // answered within connect_timeout, or as soon as `given_up` (checked every 50 ms while
  // connecting) says true: a frozen server must not hold the caller for the whole timeout.
  static absl::StatusOr<std::unique_ptr<PostgresConnection>> Open(
      const LibPq& pq, const std::string& conninfo, const PostgresConnectionOptions& options,
      const std::function<bool()>& given_up = nullptr);

  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;
  ~PostgresConnection() override;

  // Connection. A read transaction sends no BEGIN and no COMMIT: its statements run in one
  // implicit transaction of the extended protocol (each answered after a flush, none followed by
  // a sync until the transaction ends), REPEATABLE READ by the session's default, so every
  // statement reads the snapshot the first one took; it ends with the sync, whose answer is read
  // before the connection's next command. A direct decision is then one statement on the server.
  // A write holds the writers' advisory lock, a decision log append the log's, from its BEGIN on.
  Dialect dialect() const override { return Dialect::kPostgres; }
  absl::StatusOr<ResultRows> Execute(Statement statement, const Params& params = Params()) override;

  // Runs several statements in one round trip (libpq's pipeline mode): each new statement's
  // preparation and every statement, then one sync, or inside a read transaction one flush.
  // Their rows in order, or the first failure (the statements after a failed one are not run;
  // a read transaction in which one failed fails every later statement until it ends).
  struct PipelinedStatement {
    Statement statement;
    const Params* params;
  };
  absl::StatusOr<std::vector<ResultRows>> ExecutePipelined(
      const std::vector<PipelinedStatement>& statements);
  absl::Status Begin(TransactionKind kind) override;

  // Runs SQL without parameters, one or more statements (transaction control, migrations).
  // Not inside a read transaction (INTERNAL): it would end the transaction's snapshot.
  absl::Status ExecuteScript(const char* sql);
  // Runs one statement without parameters and returns its rows, as Execute does.
  absl::StatusOr<ResultRows> Query(const char* sql);

  // Commits the open transaction. PostgreSQL answers a COMMIT of a transaction in which a
  // statement failed by rolling it back quietly; that is an error here. A read transaction's end
  // is sent without waiting for its answer: it has nothing to keep.
  absl::Status Commit() override;

  // Rolls the open transaction back (a read transaction that sent nothing simply ends); a
  // connection that cannot leave its transaction is marked broken.
  void Rollback() override;

  // True while a transaction is open on the connection (or failed and not yet rolled back); a
  // read transaction's end on its way does not count.
  bool InTransaction() const;
  // Connection: not when broken or left inside a transaction.
  bool Reusable() const override { return !broken_ && !InTransaction(); }

  // Whether an idle connection can still be used: false when its server ended it meanwhile (a
  // restart, a failover, pg_terminate_backend, an idle timeout), which would otherwise fail the
  // next call that leases it. Reads what the server sent; waits only for a COMMIT in flight.
  bool StillUsable();

  // Called by the pool as it leases the connection out: nothing has been answered on this lease.
  void StartLease() { answered_on_lease_ = false; }
  // True when the server ended the connection (a restart, a failover, pg_terminate_backend)
  // before it answered anything on this lease: nothing the lease sent was done, so the caller
  // may send it all again on a fresh connection. False for a server that stopped answering.
  bool LostBeforeAnyAnswer() const override;
  // True once a command succeeded on this lease.
  bool AnsweredOnLease() const { return answered_on_lease_; }
  // How many times the connection has sent commands and waited for their answers (a pipeline
  // counts once; a read transaction's end, sent without waiting, not at all).
  int64_t round_trips() const { return round_trips_; }
  // How many commands the server was sent to run: each statement, each preparation, each
  // simple query (BEGIN, COMMIT, a script counts once); a read transaction's end counts one.
  int64_t commands_sent() const { return commands_sent_; }

  // Shuts the connection's socket, from any thread: a wait for the server's answer ends at once
  // and the connection counts as broken from then on.
  void Interrupt() override;

  // Closes the connection when it returns to the pool.
  void MarkBroken() { broken_ = true; }
  bool broken() const { return broken_; }

 private:
  struct PreparedStatement {
    bool prepared = false;
    std::vector<unsigned int> types;
  };

  PostgresConnection(const LibPq& pq, PGconn* connection, absl::Duration answer_limit)
      : pq_(pq), connection_(connection), answer_limit_(answer_limit) {}

  // The server's next result (PQgetResult), waiting at most answer_limit_ for it: statement_timeout
  // is the server's to enforce, and a server frozen while its machine still acknowledges would
  // hold the call forever. Past the limit the connection is broken and nullptr comes back.
  PGresult* NextResult();
  // What PQexec answers, with NextResult's limit: the last result of the command sent, or
  // nullptr when it could not be sent or none came.
  PGresult* LastResult(bool sent);

  // A result's rows, read in full.
  ResultRows ToRows(const PgResult& result) const;
  // The status of a failed command; marks the connection broken when its server is gone.
  absl::Status Failure(const PGresult* result, absl::string_view what);
  // Reads the answer to a read transaction's end sent without waiting: before any other command.
  absl::Status AwaitCommit();
  // Ends a read transaction's implicit transaction on the server: sends its sync and, when
  // `wait`, reads its answer (otherwise AwaitCommit does, later).
  absl::Status EndRead(bool wait);
  const LibPq& pq_;
  PGconn* connection_;
  std::array<PreparedStatement, kStatementCount> statements_;
  // A read transaction: begun with nothing sent; its implicit transaction open on the server
  // (statements sent, no sync yet); or failed there (ended, every later statement refused).
  enum class Read { kNone, kBegun, kOpen, kFailed };
  Read read_ = Read::kNone;
  bool commit_in_flight_ = false;  // a read transaction's sync, its answer not read yet
  bool broken_ = false;
  const absl::Duration answer_limit_;
  bool answer_late_ = false;              // broken because no answer came within answer_limit_
  bool answered_on_lease_ = false;        // a command succeeded since StartLease
  std::atomic<bool> interrupted_{false};  // Interrupt was called
  int64_t round_trips_ = 0;
  int64_t commands_sent_ = 0;
};

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POSTGRES_CONNECTION_H_
