#include "store/postgres/read_endpoints.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "store/postgres/postgres_source.h"

namespace verdict {
namespace {

// The checker's connections: a check that cannot finish soon is worth less than the next one.
constexpr PostgresConnectionOptions kCheckerOptions{.lock_timeout = absl::Seconds(1),
                                                    .statement_timeout = absl::Seconds(2),
                                                    .connect_timeout = absl::Seconds(2)};

// What the primary's writers commit with (and whether that is the server's setting or only the
// checker's session's), its quorum, whether any role or database lowers
// synchronous_commit, and its WAL position (pg_current_wal_lsn() fails on a standby).
constexpr char kPrimaryFacts[] =
    "SELECT pg_is_in_recovery(), "
    "(SELECT setting FROM pg_settings WHERE name = 'synchronous_commit'), "
    "(SELECT source FROM pg_settings WHERE name = 'synchronous_commit'), "
    "current_setting('synchronous_standby_names'), "
    "(SELECT count(*) FROM pg_db_role_setting s, unnest(s.setconfig) c "
    "  WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = "
    "current_database())) "
    "  AND c LIKE 'synchronous\\_commit=%' AND c <> 'synchronous_commit=remote_apply'), "
    "CASE WHEN pg_is_in_recovery() THEN 0 "
    "ELSE (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint END";
constexpr char kSenders[] =
    "SELECT coalesce(application_name, ''), coalesce(state, ''), coalesce(sync_state, '') "
    "FROM pg_stat_replication";
constexpr char kStandbyFacts[] =
    "SELECT pg_is_in_recovery(), current_setting('cluster_name'), "
    "(pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, "
    "coalesce((SELECT status FROM pg_stat_wal_receiver LIMIT 1), '')";

}  // namespace

ReadEndpoints::ReadEndpoints(const LibPq& pq, std::string primary_conninfo, Options options)
    : pq_(pq), primary_conninfo_(std::move(primary_conninfo)), options_(std::move(options)) {
  for (size_t i = 0; i < options_.conninfos.size(); ++i) {
    auto endpoint = std::make_unique<Endpoint>();
    endpoint->conninfo = options_.conninfos[i];
    endpoint->name =
        i < options_.names.size() ? options_.names[i] : absl::StrCat("read endpoint ", i + 1);
    endpoint->pool = std::make_unique<ConnectionPool>(
        PostgresSource(pq_, endpoint->conninfo, options_.connection),
        PostgresPoolOptions(options_.connection, options_.connections));
    endpoints_.push_back(std::move(endpoint));
  }
  Check();
  checker_ = std::thread([this] { CheckLoop(); });
}

ReadEndpoints::~ReadEndpoints() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  stopped_ = true;
  checker_.join();
}

void ReadEndpoints::CheckLoop() {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_; };
      if (mutex_.AwaitWithTimeout(absl::Condition(&stopping), options_.check_period)) return;
    }
    Check();
  }
}

void ReadEndpoints::CheckNow() { Check(); }

std::optional<ReadEndpoints::Choice> ReadEndpoints::Pick() {
  const int64_t now = absl::GetCurrentTimeNanos();
  const size_t count = endpoints_.size();
  const uint64_t start = next_pick_.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < count; ++i) {
    const size_t index = (start + i) % count;
    if (endpoints_[index]->usable_until_nanos.load(std::memory_order_acquire) > now) {
      return Choice{endpoints_[index]->pool.get(), static_cast<int>(index)};
    }
  }
  return std::nullopt;
}

void ReadEndpoints::Drop(int index, absl::string_view why) {
  Endpoint& endpoint = *endpoints_[index];
  if (endpoint.usable_until_nanos.exchange(0, std::memory_order_acq_rel) == 0) return;
  Report(endpoint, Refusal(absl::StatusCode::kUnavailable, "a read failed",
                           absl::StrCat("a read failed: ", why)));
}

void ReadEndpoints::BreakLeased() {
  for (auto& endpoint : endpoints_) endpoint->pool->BreakLeased();
}

std::string ReadEndpoints::Describe() {
  std::string lines;
  const int64_t now = absl::GetCurrentTimeNanos();
  absl::MutexLock lock(&mutex_);
  for (const auto& endpoint : endpoints_) {
    const bool usable = endpoint->usable_until_nanos.load() > now;
    absl::StrAppend(&lines, endpoint->name, ": ",
                    usable ? "reads here"
                    : endpoint->last_message.empty()
                        ? "refused: its usability lapsed (no check finished in time)"
                        : absl::StrCat("refused: ", endpoint->last_message),
                    "\n");
  }
  return lines;
}

absl::StatusOr<PostgresConnection*> ReadEndpoints::CheckerConnection(
    const std::string& conninfo, std::unique_ptr<PostgresConnection>& held) {
  if (held != nullptr && held->broken()) held.reset();
  if (held == nullptr) {
    absl::StatusOr<std::unique_ptr<PostgresConnection>> opened = PostgresConnection::Open(
        pq_, conninfo, kCheckerOptions, [this] { return stopped_.load(); });
    if (!opened.ok()) return opened.status();
    held = *std::move(opened);
  }
  return held.get();
}

absl::StatusOr<PrimaryFacts> ReadEndpoints::ReadPrimary() {
  absl::StatusOr<PostgresConnection*> connection =
      CheckerConnection(primary_conninfo_, primary_checker_);
  if (!connection.ok()) return connection.status();
  absl::StatusOr<ResultRows> facts = (*connection)->Query(kPrimaryFacts);
  if (!facts.ok()) return facts.status();
  if (facts->size() != 1) return absl::InternalError("the primary's settings: no row");
  PrimaryFacts primary;
  const ResultRow row = facts->row(0);
  primary.in_recovery = row.Bool(0);
  primary.synchronous_commit = row.Text(1);
  primary.synchronous_commit_source = row.Text(2);
  primary.synchronous_standby_names = row.Text(3);
  primary.lowering_overrides = row.Int64(4);
  primary.wal_lsn = row.Int64(5);
  absl::StatusOr<ResultRows> senders = (*connection)->Query(kSenders);
  if (!senders.ok()) return senders.status();
  for (int i = 0; i < senders->size(); ++i) {
    const ResultRow sender = senders->row(i);
    primary.senders.push_back({sender.Text(0), sender.Text(1), sender.Text(2)});
  }
  return primary;
}

absl::StatusOr<StandbyFacts> ReadEndpoints::ReadStandby(Endpoint& endpoint) {
  absl::StatusOr<PostgresConnection*> connection =
      CheckerConnection(endpoint.conninfo, endpoint.checker);
  if (!connection.ok()) return connection.status();
  absl::StatusOr<ResultRows> facts = (*connection)->Query(kStandbyFacts);
  if (!facts.ok()) return facts.status();
  if (facts->size() != 1) return absl::InternalError("the standby's settings: no row");
  const ResultRow row = facts->row(0);
  StandbyFacts standby;
  standby.in_recovery = row.Bool(0);
  standby.cluster_name = row.Text(1);
  if (!row.IsNull(2)) standby.replay_lsn = row.Int64(2);
  standby.receiver_status = row.Text(3);
  return standby;
}

void ReadEndpoints::Check() {
  absl::MutexLock one_at_a_time(&check_mutex_);
  // Usable until two periods after the primary was read: the facts are at least that old.
  const absl::Time checked_at = absl::Now();
  const int64_t usable_until = absl::ToUnixNanos(checked_at + 2 * options_.check_period);
  absl::StatusOr<PrimaryFacts> primary = ReadPrimary();
  absl::StatusOr<SynchronousStandbys> quorum =
      primary.ok()
          ? PrimaryWaitsForEveryListedStandby(*primary)
          : absl::StatusOr<SynchronousStandbys>(Refusal(
                absl::StatusCode::kUnavailable, "primary unreachable",
                absl::StrCat("the primary cannot be checked: ", primary.status().message())));
  for (auto& endpoint : endpoints_) {
    absl::Status judged = quorum.status();
    if (quorum.ok()) {
      // Replayed up to where the primary was one check ago in the steady state; where it is now
      // when the rule did not hold for this standby then, or the primary's settings changed.
      const int64_t required_lsn =
          RequiredReplayLsn(previous_primary_, endpoint->usable_at_previous_check, *primary);
      absl::StatusOr<StandbyFacts> standby = ReadStandby(*endpoint);
      judged = standby.ok()
                   ? JudgeStandby(*primary, *quorum, *standby, required_lsn)
                   : Refusal(absl::StatusCode::kUnavailable, "standby unreachable",
                             absl::StrCat("it cannot be checked: ", standby.status().message()));
    }
    endpoint->usable_at_previous_check = judged.ok();
    endpoint->usable_until_nanos.store(judged.ok() ? usable_until : 0, std::memory_order_release);
    Report(*endpoint, judged);
  }
  if (quorum.ok()) {
    previous_primary_ = *std::move(primary);
  } else {
    previous_primary_.reset();
  }
}

void ReadEndpoints::Report(Endpoint& endpoint, const absl::Status& judged) {
  const std::string key = RefusalReason(judged);
  {
    absl::MutexLock lock(&mutex_);
    endpoint.last_message = std::string(judged.message());
    if (endpoint.told && key == endpoint.last_key) return;
    endpoint.told = true;
    endpoint.last_key = key;
  }
  if (options_.on_change) {
    options_.on_change(judged.ok(),
                       judged.ok() ? absl::StrCat(endpoint.name, ": reads here")
                                   : absl::StrCat(endpoint.name, ": refused: ", judged.message()));
  }
}

}  // namespace verdict
