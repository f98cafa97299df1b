#include "store/postgres/postgres_connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "store/policy_encoding.h"

namespace verdict {
namespace {

// PostgreSQL's fixed type OIDs (pg_type.dat) for the parameter types the store binds.
constexpr unsigned int kBoolOid = 16;
constexpr unsigned int kByteaOid = 17;
constexpr unsigned int kInt8Oid = 20;
constexpr unsigned int kInt2Oid = 21;
constexpr unsigned int kInt4Oid = 23;
constexpr unsigned int kTextOid = 25;

constexpr int kBinaryFormat = 1;

// SQLSTATE classes and codes that mean "not now" rather than "wrong": the server is unreachable
// or going away, out of resources, read-only (a standby), or a lock or statement timed out.
bool IsUnavailableState(absl::string_view sqlstate) {
  for (absl::string_view unavailable_class : {"08", "53", "57", "58", "40", "28", "3D"}) {
    if (absl::StartsWith(sqlstate, unavailable_class)) return true;
  }
  return sqlstate == "25006" || sqlstate == "55P03";
}

std::string Milliseconds(absl::Duration duration) {
  return absl::StrCat(absl::ToInt64Milliseconds(duration), "ms");
}

// PostgreSQL's binary integers are big-endian, `bytes` long.
uint64_t LoadBigEndian(const char* data, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<unsigned char>(data[i]);
  return value;
}

// libpq's messages end with a newline.
std::string Trimmed(const char* message) {
  return std::string(absl::StripTrailingAsciiWhitespace(message == nullptr ? "" : message));
}

}  // namespace

std::string PgAdvisoryLockSql(PgLock lock) {
  return absl::StrCat("SELECT pg_advisory_xact_lock(", kPgLockSpace, ", hashtext('",
                      static_cast<int>(lock), "/' || coalesce(current_schema(), '')))");
}

PgResult::PgResult(PgResult&& other) noexcept
    : pq_(other.pq_), result_(std::exchange(other.result_, nullptr)) {}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) pq_->clear(result_);
    pq_ = other.pq_;
    result_ = std::exchange(other.result_, nullptr);
  }
  return *this;
}

PgResult::~PgResult() {
  if (result_ != nullptr) pq_->clear(result_);
}

int PgResult::size() const { return pq_->ntuples(result_); }

int PgResult::columns() const { return pq_->nfields(result_); }

ExecStatusType PgResult::status() const {
  return result_ == nullptr ? PGRES_FATAL_ERROR : pq_->resultStatus(result_);
}

int64_t PgResult::changed_rows() const {
  int64_t rows = 0;
  absl::SimpleAtoi(pq_->cmdTuples(result_), &rows);
  return rows;
}

absl::StatusOr<std::unique_ptr<PostgresConnection>> PostgresConnection::Open(
    const LibPq& pq, const std::string& conninfo, const PostgresConnectionOptions& options,
    const std::function<bool()>& given_up) {
  // The URL (or key=value string) is expanded in place of dbname; the defaults before it give
  // way to what it says.
  const std::string connect_timeout =
      absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(options.connect_timeout)));
  // A server that stops answering without closing the connection (a network partition, a
  // paused machine) must not hold a call forever, and statement_timeout is the server's to
  // enforce: TCP gives up on data the server does not acknowledge after tcp_user_timeout, and
  // keepalives find a silent peer of an idle connection. The URL may set other values.
  const std::string user_timeout =
      absl::StrCat(absl::ToInt64Milliseconds(options.statement_timeout));
  const char* const keywords[] = {
      "connect_timeout",     "fallback_application_name", "tcp_user_timeout", "keepalives_idle",
      "keepalives_interval", "keepalives_count",          "dbname",           nullptr};
  const char* const values[] = {
      connect_timeout.c_str(), "verdictd", user_timeout.c_str(), "10", "5", "3",
      conninfo.c_str(),        nullptr};
  // The server answers within statement_timeout or says why not; the margin lets it say so.
  std::unique_ptr<PostgresConnection> opened(
      new PostgresConnection(pq, pq.connectStartParams(keywords, values, /*expand_dbname=*/1),
                             options.statement_timeout + absl::Seconds(2)));
  if (opened->connection_ == nullptr) {
    return absl::UnavailableError("policy store unavailable: libpq is out of memory");
  }
  // libpq's own loop (PQconnectdbParams) would wait out connect_timeout on a server that
  // accepts the connection and never answers (a frozen one); this one also stops when the
  // caller gives up (ConnectionPool::BreakLeased).
  const absl::Time deadline =
      absl::Now() +
      std::max(absl::Seconds(1), absl::Seconds(absl::ToInt64Seconds(options.connect_timeout)));
  PostgresPollingStatusType polling = PGRES_POLLING_WRITING;
  while (pq.status(opened->connection_) != CONNECTION_BAD && polling != PGRES_POLLING_OK &&
         polling != PGRES_POLLING_FAILED) {
    if (given_up && given_up()) {
      return absl::UnavailableError(
          "policy store unavailable: connecting was abandoned (the server stopped answering)");
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::UnavailableError(
          "policy store unavailable: the server did not answer within the connect timeout");
    }
    pollfd ready{pq.socket(opened->connection_),
                 static_cast<short>(polling == PGRES_POLLING_READING ? POLLIN : POLLOUT), 0};
    const int polled = poll(
        &ready, 1,
        static_cast<int>(absl::ToInt64Milliseconds(std::min(left, absl::Milliseconds(50))) + 1));
    if (polled < 0 && errno != EINTR) break;
    if (polled > 0) polling = pq.connectPoll(opened->connection_);
  }
  if (pq.status(opened->connection_) != CONNECTION_OK) {
    return absl::UnavailableError(
        absl::StrCat("policy store unavailable: ", Trimmed(pq.errorMessage(opened->connection_))));
  }
  // Server notices (a migration's "relation already exists, skipping") are not the caller's.
  pq.setNoticeProcessor(
      opened->connection_, [](void*, const char*) {}, nullptr);
  // A call must not wait forever on a lock or a stuck server, and a transaction left open by a
  // stuck client must not hold its locks forever. A read transaction is one implicit
  // transaction of the extended protocol (Begin): REPEATABLE READ by default, so that all of its
  // statements read one snapshot. Every transaction with a BEGIN names its own level.
  const std::string settings = absl::StrCat(
      "SET lock_timeout = '", Milliseconds(options.lock_timeout), "';", "SET statement_timeout = '",
      Milliseconds(options.statement_timeout), "';", "SET idle_in_transaction_session_timeout = '",
      Milliseconds(options.statement_timeout * 3), "';",
      "SET default_transaction_isolation = 'repeatable read'");
  if (absl::Status set = opened->ExecuteScript(settings.c_str()); !set.ok()) return set;
  return opened;
}

PGresult* PostgresConnection::NextResult() {
  const absl::Time deadline = absl::Now() + answer_limit_;
  while (pq_.isBusy(connection_)) {
    const int64_t left = absl::ToInt64Milliseconds(deadline - absl::Now());
    pollfd readable{pq_.socket(connection_), POLLIN, 0};
    const int polled = left > 0 ? poll(&readable, 1, static_cast<int>(left)) : 0;
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      answer_late_ = true;
      broken_ = true;
      return nullptr;
    }
    if (polled < 0 || pq_.consumeInput(connection_) != 1) {
      broken_ = true;
      return nullptr;
    }
  }
  PGresult* result = pq_.getResult(connection_);
  if (result != nullptr) {
    const ExecStatusType status = pq_.resultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) answered_on_lease_ = true;
  }
  return result;
}

void PostgresConnection::Interrupt() {
  interrupted_.store(true);  // not a server that ended the connection: no retry elsewhere
  const int fd = pq_.socket(connection_);
  if (fd >= 0) shutdown(fd, SHUT_RDWR);
}

bool PostgresConnection::LostBeforeAnyAnswer() const {
  return broken_ && !answer_late_ && !answered_on_lease_ && !interrupted_.load() &&
         pq_.status(connection_) != CONNECTION_OK;
}

PGresult* PostgresConnection::LastResult(bool sent) {
  if (!sent) return nullptr;
  ++round_trips_;
  ++commands_sent_;
  PGresult* last = nullptr;
  while (PGresult* next = NextResult()) {
    if (last != nullptr) pq_.clear(last);
    last = next;
  }
  if (answer_late_ && last != nullptr) {
    pq_.clear(last);
    return nullptr;
  }
  return last;
}

bool PostgresConnection::StillUsable() {
  if (broken_) return false;
  if (commit_in_flight_) return AwaitCommit().ok();
  // Twice: a server that ended the connection sent its FATAL message, then closed; one read
  // may take the message without reaching the end. Neither read waits.
  for (int read = 0; read < 2 && !broken_; ++read) {
    if (pq_.consumeInput(connection_) != 1 || pq_.status(connection_) != CONNECTION_OK) {
      broken_ = true;
    }
  }
  return !broken_;
}

PostgresConnection::~PostgresConnection() {
  if (connection_ != nullptr) pq_.finish(connection_);
}

absl::Status PostgresConnection::Failure(const PGresult* result, absl::string_view what) {
  const char* sqlstate =
      result == nullptr ? nullptr : pq_.resultErrorField(result, PG_DIAG_SQLSTATE);
  const std::string message =
      answer_late_
          ? absl::StrCat("no answer from the server within ", absl::FormatDuration(answer_limit_))
          : Trimmed(result != nullptr ? pq_.resultErrorMessage(result)
                                      : pq_.errorMessage(connection_));
  if (pq_.status(connection_) != CONNECTION_OK) broken_ = true;
  if (broken_ || sqlstate == nullptr || IsUnavailableState(sqlstate)) {
    return absl::UnavailableError(absl::StrCat("policy store unavailable: ", what, ": ", message));
  }
  return absl::InternalError(
      absl::StrCat("policy store error: ", what, ": ", message, " (SQLSTATE ", sqlstate, ")"));
}

absl::Status PostgresConnection::AwaitCommit() {
  if (!commit_in_flight_) return absl::OkStatus();
  commit_in_flight_ = false;
  // A read-only transaction loses nothing when its end fails: only the connection counts.
  PgResult sync(pq_, NextResult());
  if (sync.status() != PGRES_PIPELINE_SYNC || pq_.exitPipelineMode(connection_) != 1 ||
      pq_.status(connection_) != CONNECTION_OK) {
    broken_ = true;
    return Failure(nullptr, "ending a read transaction");
  }
  return absl::OkStatus();
}

absl::Status PostgresConnection::EndRead(bool wait) {
  const Read read = std::exchange(read_, Read::kNone);
  if (read != Read::kOpen) return absl::OkStatus();  // nothing open on the server
  ++commands_sent_;
  if (pq_.pipelineSync(connection_) != 1) {
    broken_ = true;
    return Failure(nullptr, "ending a read transaction");
  }
  commit_in_flight_ = true;
  if (!wait) return absl::OkStatus();
  ++round_trips_;
  return AwaitCommit();
}

void PostgresConnection::Rollback() {
  if (read_ != Read::kNone) {
    // Its implicit transaction ends with the sync, rolled back if a statement failed.
    EndRead(/*wait=*/true).IgnoreError();
    return;
  }
  if (!AwaitCommit().ok() || !InTransaction()) return;
  if (!ExecuteScript("ROLLBACK").ok() && InTransaction()) broken_ = true;
}

namespace {

// A statement's parameters in binary form: integers big-endian, text and bytes as they are.
struct BinaryParams {
  explicit BinaryParams(const Params& params) {
    const int count = static_cast<int>(params.values().size());
    types.resize(count);
    binary.resize(count);
    values.resize(count);
    lengths.resize(count);
    formats.assign(count, kBinaryFormat);
    for (int i = 0; i < count; ++i) {
      const Params::Value& value = params.values()[i];
      types[i] = value.type == Params::Type::kInt64   ? kInt8Oid
                 : value.type == Params::Type::kBytes ? kByteaOid
                                                      : kTextOid;
      if (value.type == Params::Type::kInt64) {
        binary[i].resize(sizeof(uint64_t));
        for (size_t b = 0; b < sizeof(uint64_t); ++b) {
          binary[i][b] = static_cast<char>(static_cast<uint64_t>(value.integer) >> (8 * (7 - b)));
        }
      }
      const std::string& bytes = value.type == Params::Type::kInt64 ? binary[i] : value.text;
      values[i] = value.is_null ? nullptr : bytes.data();
      lengths[i] = static_cast<int>(bytes.size());
    }
  }
  // `values` points into `binary` and the Params: neither copied nor moved.
  BinaryParams(const BinaryParams&) = delete;
  BinaryParams& operator=(const BinaryParams&) = delete;

  int count() const { return static_cast<int>(types.size()); }

  std::vector<unsigned int> types;
  std::vector<std::string> binary;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
};

}  // namespace

absl::StatusOr<ResultRows> PostgresConnection::Execute(Statement statement, const Params& params) {
  // One statement is a pipeline of one: a new statement's preparation goes with it in its one
  // round trip.
  absl::StatusOr<std::vector<ResultRows>> rows = ExecutePipelined({{statement, &params}});
  if (!rows.ok()) return rows.status();
  return std::move(rows->front());
}

absl::StatusOr<std::vector<ResultRows>> PostgresConnection::ExecutePipelined(
    const std::vector<PipelinedStatement>& statements) {
  if (absl::Status committed = AwaitCommit(); !committed.ok()) return committed;
  if (read_ == Read::kFailed) {
    return absl::InternalError(
        "policy store error: a statement of this read transaction failed; it reads no more");
  }
  std::deque<BinaryParams> params;  // in place: each points into itself
  std::vector<bool> prepares(statements.size(), false);
  for (size_t i = 0; i < statements.size(); ++i) {
    const StatementSql sql = GetStatementSql(statements[i].statement, Dialect::kPostgres);
    if (sql.sql == nullptr) {
      return absl::InternalError(
          absl::StrCat("policy store error: ", sql.name, " has no PostgreSQL form"));
    }
    params.emplace_back(*statements[i].params);
    const PreparedStatement& cached = statements_[static_cast<size_t>(statements[i].statement)];
    if (cached.prepared && cached.types != params.back().types) {
      return absl::InternalError(absl::StrCat("policy store error: ", sql.name,
                                              " bound with other parameter types than prepared"));
    }
    bool prepared_earlier = cached.prepared;
    for (size_t j = 0; j < i && !prepared_earlier; ++j) {
      prepared_earlier = prepares[j] && statements[j].statement == statements[i].statement;
    }
    prepares[i] = !prepared_earlier;
  }
  // The commands in the order sent: i for statement i, PrepareOf(i) for its preparation.
  auto prepare_of = [](size_t i) { return -1 - static_cast<int>(i); };
  auto statement_of = [](int command) {
    return static_cast<size_t>(command >= 0 ? command : -1 - command);
  };
  std::vector<int> commands;
  // A read transaction's statements stay in its implicit transaction: flushed, not synced.
  const bool in_read = read_ != Read::kNone;
  bool sent = pq_.enterPipelineMode(connection_) == 1;
  for (size_t i = 0; sent && i < statements.size(); ++i) {
    const StatementSql sql = GetStatementSql(statements[i].statement, Dialect::kPostgres);
    const BinaryParams& bound = params[i];
    if (prepares[i]) {
      sent =
          pq_.sendPrepare(connection_, sql.name, sql.sql, bound.count(), bound.types.data()) == 1;
      commands.push_back(prepare_of(i));
    }
    sent = sent &&
           pq_.sendQueryPrepared(connection_, sql.name, bound.count(), bound.values.data(),
                                 bound.lengths.data(), bound.formats.data(), kBinaryFormat) == 1;
    commands.push_back(static_cast<int>(i));
  }
  if (in_read) {
    sent = sent && pq_.sendFlushRequest(connection_) == 1 && pq_.flush(connection_) == 0;
    read_ = Read::kOpen;
  } else {
    sent = sent && pq_.pipelineSync(connection_) == 1;
  }
  if (!sent) {
    broken_ = true;  // a pipeline half sent leaves the connection in no known state
    return Failure(nullptr, "a pipeline of statements");
  }
  ++round_trips_;
  commands_sent_ += static_cast<int64_t>(commands.size());
  // Each command's result is followed by a null one; the sync's result comes last. After a
  // failure the later commands come back PGRES_PIPELINE_ABORTED.
  absl::Status failure;
  std::vector<ResultRows> rows(statements.size());
  for (const int command : commands) {
    PGresult* raw = NextResult();
    if (raw == nullptr) {
      broken_ = true;
      return Failure(nullptr, "a pipeline of statements");
    }
    PgResult result(pq_, raw);
    while (PGresult* end = NextResult()) pq_.clear(end);
    const ExecStatusType status = result.status();
    if (status == PGRES_PIPELINE_ABORTED) continue;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      if (failure.ok()) {
        const char* name =
            GetStatementSql(statements[statement_of(command)].statement, Dialect::kPostgres).name;
        failure = Failure(result.raw(), command >= 0 ? name : absl::StrCat("preparing ", name));
      }
      continue;
    }
    if (command >= 0) {
      rows[command] = ToRows(result);
    } else {
      // Prepared on the server now, whatever fails later in the pipeline: a rollback does not
      // undo a preparation, so the next pipeline must not prepare it again ("already exists").
      const size_t i = statement_of(command);
      PreparedStatement& cached = statements_[static_cast<size_t>(statements[i].statement)];
      cached.prepared = true;
      cached.types = params[i].types;
    }
  }
  if (in_read) {
    // A failed statement ended the implicit transaction's work: the server skips everything
    // until the sync, which ends it. The transaction reads nothing more (a later statement
    // would read another snapshot).
    if (!failure.ok()) {
      if (!broken_) EndRead(/*wait=*/true).IgnoreError();
      read_ = Read::kFailed;
    }
    return failure.ok() ? absl::StatusOr<std::vector<ResultRows>>(std::move(rows)) : failure;
  }
  PgResult sync(pq_, NextResult());
  if (sync.status() != PGRES_PIPELINE_SYNC || pq_.exitPipelineMode(connection_) != 1) {
    broken_ = true;
    if (failure.ok()) failure = Failure(nullptr, "a pipeline of statements");
  }
  if (!failure.ok()) return failure;
  return rows;
}

ResultRows PostgresConnection::ToRows(const PgResult& result) const {
  const int columns = result.columns();
  ResultRows rows(columns);
  for (int i = 0; i < result.size(); ++i) {
    for (int column = 0; column < columns; ++column) {
      const unsigned int type = pq_.ftype(result.raw(), column);
      const char* value = pq_.getvalue(result.raw(), i, column);
      const int length = pq_.getlength(result.raw(), i, column);
      if (pq_.getisnull(result.raw(), i, column) != 0) {
        rows.AddNull();
      } else if (type == kInt8Oid || type == kInt4Oid || type == kInt2Oid) {
        const uint64_t bits = LoadBigEndian(value, length);
        rows.AddInt64(length == 2   ? static_cast<int16_t>(bits)
                      : length == 4 ? static_cast<int32_t>(bits)
                                    : static_cast<int64_t>(bits));
      } else if (type == kBoolOid) {
        rows.AddInt64(length == 1 && value[0] != 0 ? 1 : 0);
      } else {
        rows.AddText(absl::string_view(value, length));
      }
    }
  }
  rows.set_changed_rows(result.changed_rows());
  return rows;
}

absl::Status PostgresConnection::Begin(TransactionKind kind) {
  if (kind == TransactionKind::kRead) {
    // No BEGIN: the statements' implicit transaction, REPEATABLE READ by the session's default,
    // takes one snapshot at the first statement and keeps it until EndRead's sync.
    read_ = Read::kBegun;
    return absl::OkStatus();
  }
  // READ COMMITTED under the lock: every read after the lock sees every write committed before
  // it, as a write transaction must (decision/policy_store.h).
  std::string begin = "BEGIN ISOLATION LEVEL READ COMMITTED";
  if (kind != TransactionKind::kLockFreeWrite) {
    absl::StrAppend(&begin, "; ",
                    PgAdvisoryLockSql(kind == TransactionKind::kWrite ? PgLock::kWriter
                                                                      : PgLock::kDecisionLog));
  }
  absl::Status begun = ExecuteScript(begin.c_str());
  if (!begun.ok()) Rollback();
  return begun;
}

absl::Status PostgresConnection::ExecuteScript(const char* sql) {
  if (read_ != Read::kNone) {
    return absl::InternalError("policy store error: a script inside a read transaction");
  }
  if (absl::Status committed = AwaitCommit(); !committed.ok()) return committed;
  PgResult result(pq_, LastResult(pq_.sendQuery(connection_, sql) == 1));
  const ExecStatusType status = result.status();
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return Failure(result.raw(), absl::string_view(sql).substr(0, 40));
  }
  return absl::OkStatus();
}

absl::StatusOr<ResultRows> PostgresConnection::Query(const char* sql) {
  if (read_ != Read::kNone) {
    return absl::InternalError("policy store error: a simple query inside a read transaction");
  }
  if (absl::Status committed = AwaitCommit(); !committed.ok()) return committed;
  PgResult result(pq_, LastResult(pq_.sendQueryParams(connection_, sql, 0, nullptr, nullptr,
                                                      nullptr, nullptr, kBinaryFormat) == 1));
  if (result.status() != PGRES_TUPLES_OK) {
    return Failure(result.raw(), absl::string_view(sql).substr(0, 40));
  }
  return ToRows(result);
}

absl::Status PostgresConnection::Commit() {
  // A read-only transaction has nothing to keep: its end just releases its snapshot, and its
  // answer is read before the connection's next command.
  if (read_ != Read::kNone) {
    if (!EndRead(/*wait=*/false).ok()) MarkBroken();
    return absl::OkStatus();
  }
  if (absl::Status committed = AwaitCommit(); !committed.ok()) return committed;
  if (pq_.transactionStatus(connection_) == PQTRANS_INERROR) {
    return absl::InternalError(
        "policy store error: a statement of the transaction failed, so it was not committed");
  }
  return ExecuteScript("COMMIT");
}

bool PostgresConnection::InTransaction() const {
  if (read_ != Read::kNone) return true;
  return !commit_in_flight_ && pq_.transactionStatus(connection_) != PQTRANS_IDLE;
}

}  // namespace verdict
