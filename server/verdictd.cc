// verdictd: verdict's policy-decision sidecar. Serves verdict.v1.DecisionService (plus gRPC
// health checking and reflection) from a SQLite policy store read fresh on every call.
//
//   verdictd --listen=127.0.0.1:50051 --db=/var/lib/verdict/verdict.db
//
// The process: flags (server/flags.h), the store, the services, the listener
// (server/grpc_server.h), health that follows the store (server/availability_monitor.h), and a
// graceful stop on SIGTERM or SIGINT (server/signals.h): stop accepting, finish the calls in
// flight, close the database, exit 0.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "app/policy_json.h"
#include "common/admin_limits.h"
#include "common/build_info.h"
#include "common/grpc_log.h"
#include "common/log.h"
#include "decision/authorizer.h"
#include "envoy/service/auth/v3/external_auth.grpc.pb.h"
#include "server/access_tokens.h"
#include "server/admin_plane.h"
#include "server/availability_monitor.h"
#include "server/decision_json_log.h"
#include "server/decision_runner.h"
#include "server/decision_service.h"
#include "server/ext_authz_service.h"
#include "server/fan_out_observer.h"
#include "server/flags.h"
#include "server/grpc_server.h"
#include "server/http_mapping.h"
#include "server/metrics.h"
#include "server/metrics_http_server.h"
#include "server/policy_file_watch.h"
#include "server/protobuf_log.h"
#include "server/seed.h"
#include "server/signals.h"
#include "server/storage_bounds.h"
#include "server/store_pruner.h"
#include "server/transport_limits.h"
#include "server/usage.h"
#include "server/worker_pool.h"
#include "store/open_store.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

// How long calls in flight may take to finish once a stop is asked for. gRPC also waits here for
// connected clients to hang up after its GOAWAY, so an idle client (a proxy's pooled connection)
// holds the stop for a few seconds; calls still running at the end are cancelled.
constexpr absl::Duration kShutdownGrace = absl::Seconds(10);
// How long a stopping verdictd keeps serving with health NOT_SERVING before it stops listening.
constexpr absl::Duration kShutdownDrain = absl::Seconds(1);
// How often health is brought in line with whether the store can be used; a check that takes
// longer (a frozen database) turns health NOT_SERVING at that moment.
constexpr absl::Duration kAvailabilityInterval = absl::Milliseconds(500);

// How many decisions may run at once on gRPC's own threads: as many as there are cores, which
// is about as many callback threads as gRPC runs (server/decision_runner.h).
int InlineDecisionSlots() { return std::max(1u, std::thread::hardware_concurrency()); }

constexpr int kExitConfiguration = 2;  // bad flags or an unreadable seed file
constexpr int kExitStartup = 1;        // cannot listen, or the seed policy is refused

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

// The directory of a SQLite --db must exist and be a directory (PostgreSQL: nothing to check).
absl::Status CheckDatabaseDirectory(const std::string& db) {
  absl::StatusOr<StoreLocation> location = ParseStoreLocation(db);
  if (!location.ok() || location->kind != StoreKind::kSqlite) return absl::OkStatus();
  const std::string& path = location->location;
  const size_t slash = path.rfind('/');
  const std::string directory =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat info;
  if (stat(directory.c_str(), &info) != 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(
          absl::StrCat("its directory ", directory, " does not exist: create it, or name another"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("its directory ", directory, " cannot be used: ", std::strerror(errno)));
  }
  if (!S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("its directory ", directory, " is not a directory"));
  }
  return absl::OkStatus();
}

const char* SignalName(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "SIGTERM";
  }
}

int Serve(const ServerOptions& options) {
  std::optional<std::string> seed_policy;
  if (!options.seed_path.empty()) {
    absl::StatusOr<std::string> seed = ReadFile(options.seed_path);
    if (!seed.ok()) {
      LogError(absl::StrCat("verdictd: --seed: ", seed.status().message()));
      return kExitConfiguration;
    }
    seed_policy = *std::move(seed);
  }
  absl::StatusOr<HttpMappingConfig> ext_authz_config =
      LoadHttpMappingConfig(options.ext_authz_config_path);
  if (!ext_authz_config.ok()) {
    LogError(absl::StrCat("verdictd: --ext_authz_config: ", ext_authz_config.status().message()));
    return kExitConfiguration;
  }
  JwksFileKeys file_keys;
  absl::StatusOr<std::unique_ptr<AccessTokenVerifier>> access_tokens =
      AccessTokenVerifierFromOptions(options, &file_keys);
  if (!access_tokens.ok()) {
    LogError(absl::StrCat("verdictd: ", access_tokens.status().message()));
    return kExitConfiguration;
  }
  for (const std::string& skipped : file_keys.skipped) {
    LogWarning(absl::StrCat("verdictd: --jwks_file: skipped ", skipped));
  }
  absl::StatusOr<StorageBounds> storage_bounds = StorageBoundsFromFlags();
  if (!storage_bounds.ok()) {
    LogError(absl::StrCat("verdictd: ", storage_bounds.status().message()));
    return kExitConfiguration;
  }
  // Checked before anything is created: a bad flag leaves no database or log file behind.
  absl::StatusOr<AdminPlaneOptions> admin_options =
      AdminPlaneOptionsFromFlags(options.db_path, options.listen);
  if (!admin_options.ok()) {
    LogError(absl::StrCat("verdictd: ", admin_options.status().message()));
    return kExitConfiguration;
  }
  // A missing directory is a mistake in --db, not a volume still to be mounted: nothing would
  // ever create it, so the start fails here rather than answering UNAVAILABLE for ever.
  if (absl::Status directory = CheckDatabaseDirectory(options.db_path); !directory.ok()) {
    LogError(absl::StrCat("verdictd: --db=", DescribeStoreLocation(options.db_path), ": ",
                          directory.message()));
    return kExitStartup;
  }
  admin_options->file_key_ids = file_keys.kids;
  TransportLimits transport_limits;
  transport_limits.max_memory_bytes = options.max_memory_mib << 20;
  transport_limits.max_call_duration = options.max_call_duration;
  transport_limits.max_connections = options.max_connections;
  // The admin listener's quota holds a whole policy import (kMaxAdminMessageBytes) twice over,
  // whatever --max_memory_mib says: under pressure gRPC would cancel the call holding it.
  admin_options->transport_limits = transport_limits;
  admin_options->transport_limits.max_memory_bytes =
      std::max<int64_t>(transport_limits.max_memory_bytes, int64_t{2} * kMaxAdminMessageBytes);
  std::unique_ptr<DecisionJsonLog> json_log;
  if (!options.decision_json_log_path.empty()) {
    absl::StatusOr<std::unique_ptr<DecisionJsonLog>> opened =
        DecisionJsonLog::Open(options.decision_json_log_path, [] { return absl::Now(); });
    if (!opened.ok()) {
      LogError(absl::StrCat("verdictd: --decision_json_log: ", opened.status().message()));
      return kExitStartup;
    }
    json_log = *std::move(opened);
  }

  StoreOptions store_options;
  // A connection for every worker and every inline decision (server/decision_runner.h), so an
  // inline decision never waits for a connection.
  const int inline_slots = InlineDecisionSlots();
  store_options.connections = options.workers + inline_slots;
  store_options.sqlite_mmap_bytes = options.sqlite_mmap_mib << 20;
  store_options.sqlite_keep_read_lock = options.sqlite_keep_read_lock;
  store_options.sqlite_on_advice = [](const std::string& advice) {
    LogInfo(absl::StrCat("verdictd: --db: ", advice));
  };
  // Start even when the file cannot be opened yet (a volume not mounted): every call answers
  // UNAVAILABLE and health says NOT_SERVING until it can.
  store_options.defer_open_errors = true;
  // Decisions read on a standby only while it cannot answer stale; each change is logged once.
  ReadRouteCounters read_counters;
  store_options.read_endpoints = options.db_read;
  store_options.read_counters = &read_counters;
  store_options.on_read_route_change = [](bool usable, const std::string& message) {
    if (usable) {
      LogInfo(absl::StrCat("verdictd: --db_read ", message));
    } else {
      LogWarning(absl::StrCat("verdictd: --db_read ", message, "; reading from the primary"));
    }
  };
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(options.db_path, store_options);
  if (!store.ok()) {
    if (store.status().code() == absl::StatusCode::kInvalidArgument && !options.db_read.empty()) {
      LogError(absl::StrCat("verdictd: --db_read: ", store.status().message()));
      return kExitConfiguration;
    }
    LogError(absl::StrCat("verdictd: --db=", DescribeStoreLocation(options.db_path), ": ",
                          store.status().ToString()));
    return kExitStartup;
  }

  // Ready means: the database can be used and, with --seed, holds a policy.
  bool seeded = !seed_policy.has_value();
  auto check_ready = [&store, &seed_policy, &seeded, &options]() -> absl::Status {
    if (absl::Status available = (*store)->CheckAvailable(); !available.ok()) return available;
    if (seeded) return absl::OkStatus();
    ImportCounts counts;
    absl::StatusOr<SeedOutcome> seed = SeedIfEmpty((*store)->admin(), *seed_policy, &counts);
    if (!seed.ok()) return seed.status();
    seeded = true;
    if (*seed == SeedOutcome::kStoreHeldAPolicy) {
      LogInfo(absl::StrCat("verdictd: --seed=", options.seed_path,
                           " not imported: the database already holds a policy"));
    } else {
      LogInfo(absl::StrCat("verdictd: --seed=", options.seed_path, " imported: ", counts.agents,
                           " agents, ", counts.permissions, " permissions, ", counts.delegations,
                           " delegations, ", counts.revoked_token_ids, " revoked token ids"));
    }
    return absl::OkStatus();
  };
  const absl::Status ready = check_ready();
  if (!ready.ok()) {
    if (ready.code() == absl::StatusCode::kInvalidArgument) {
      LogError(absl::StrCat("verdictd: --seed=", options.seed_path, ": ", ready.message()));
      return kExitStartup;
    }
    // What calls get depends on the reason (UNAVAILABLE for a database that cannot be reached,
    // INTERNAL naming a schema newer than this verdict); health says NOT_SERVING for all.
    LogWarning(absl::StrCat("verdictd: policy store not ready (", ready.message(),
                            "); health reports NOT_SERVING until it is"));
  } else if (absl::Status opened = (*store)->OpenEveryConnection(); !opened.ok()) {
    // The calls open what is missing, as they would have without this.
    LogWarning(absl::StrCat("verdictd: not every policy store connection could be opened yet (",
                            opened.message(), "); the first calls open the rest"));
  }

  // Before the admin plane, which counts its calls in it, and outliving it.
  Metrics metrics;
  admin_options->metrics = &metrics;
  absl::StatusOr<std::unique_ptr<AdminPlane>> admin_plane = AdminPlane::Start(
      *admin_options, options.db_path, (*store)->admin(), [] { return absl::Now(); }, store->get());
  if (!admin_plane.ok()) {
    LogError(absl::StrCat("verdictd: admin plane: ", admin_plane.status().message()));
    return kExitStartup;
  }

  // The logs first: with --decision_log_durability=sync the decision log refuses a decision whose
  // row it did not keep, which is then not answered, nor counted as answered by the metrics.
  FanOutObserver observers;
  DecisionLogWriter* const decision_log = (*admin_plane)->decision_log();
  // With both logs, each JSON line names its decision's number in the decision log's run.
  std::optional<NumberedDecisionLogs> numbered_logs;
  if (json_log != nullptr && decision_log != nullptr) {
    numbered_logs.emplace(*decision_log, *json_log);
    observers.Add(&*numbered_logs);
  } else if (json_log != nullptr) {
    observers.Add(json_log.get());
  } else if (decision_log != nullptr) {
    observers.Add(decision_log);
  }
  observers.Add(&metrics);
  if (json_log != nullptr) {
    metrics.AddExternalCounter("verdict_decision_json_log_failed_total",
                               "JSON decision log lines that could not be written.",
                               [&json_log] { return json_log->lines_failed(); });
  }
  if (DecisionLogWriter* log = decision_log; log != nullptr) {
    // A decision the log could not keep is counted here, where an operator looks, not only on
    // stderr: its row is missing, and the chain check reports its number as a gap.
    metrics.AddExternalCounter("verdict_decision_log_written_total",
                               "Decisions written to the hash-chained decision log.",
                               [log] { return log->counters().written; });
    metrics.AddExternalCounter(
        "verdict_decision_log_dropped_total",
        "Decisions not logged: the decision log's queue was full, or it had shut down.",
        [log] { return log->counters().dropped; });
    metrics.AddExternalCounter("verdict_decision_log_failed_total",
                               "Decisions not logged: the database refused their batch.",
                               [log] { return log->counters().failed; });
  }
  if (!options.db_read.empty()) {
    metrics.AddExternalCounter("verdict_store_reads_on_primary_total",
                               "Decisions' read snapshots taken on the primary (--db).",
                               [&read_counters] { return read_counters.on_primary.load(); });
    metrics.AddExternalCounter("verdict_store_reads_on_standby_total",
                               "Decisions' read snapshots taken on a synchronous standby "
                               "(--db_read).",
                               [&read_counters] { return read_counters.on_standby.load(); });
    metrics.AddExternalCounter(
        "verdict_store_standby_read_failures_total",
        "Reads that failed on a standby before it answered and ran on the primary instead.",
        [&read_counters] { return read_counters.standby_failures.load(); });
  }
  // Expired and used approvals and ended rate windows, deleted in the background on a connection
  // of its own (server/store_pruner.h).
  StorePruner pruner(
      **store, storage_bounds->prune_limits, storage_bounds->prune_interval,
      {.log = &(*admin_plane)->admin_audit(), .retention = storage_bounds->admin_audit_retention},
      (*admin_plane)->session_store());
  metrics.AddExternalCounter("verdict_pruned_approval_requests_total",
                             "Approval requests the pruning job deleted, expired or used.",
                             [&pruner] { return pruner.counters().approvals; });
  metrics.AddExternalCounter("verdict_pruned_rate_counters_total",
                             "Rate counts of ended windows the pruning job deleted.",
                             [&pruner] { return pruner.counters().rate_counters; });
  metrics.AddExternalCounter("verdict_pruned_admin_audit_rows_total",
                             "Admin audit log rows the pruning job deleted, past "
                             "--admin_audit_retention or --admin_audit_max_rows.",
                             [&pruner] { return pruner.counters().admin_audit_rows; });
  metrics.AddExternalCounter("verdict_pruned_admin_sessions_total",
                             "Admin sessions the pruning job deleted, expired.",
                             [&pruner] { return pruner.counters().admin_sessions; });
  metrics.AddExternalCounter("verdict_prune_runs_failed_total",
                             "Pruning batches the database refused; tried again later.",
                             [&pruner] { return pruner.counters().failed; });
  // --policy_file (issue 19): applied now, before anything answers (a bad file stops the
  // start), and again whenever it changes; a bad file then keeps the previous policy serving.
  std::unique_ptr<PolicyFileWatch> policy_file_watch;
  if (!options.policy_file_path.empty()) {
    absl::StatusOr<std::unique_ptr<PolicyFileWatch>> watch =
        PolicyFileWatch::Start(options.policy_file_path, (*store)->admin());
    if (!watch.ok()) {
      LogError(absl::StrCat("verdictd: --policy_file=", options.policy_file_path, ": ",
                            watch.status().message()));
      return kExitStartup;
    }
    policy_file_watch = *std::move(watch);
    metrics.AddExternalText([watch = policy_file_watch.get()] { return watch->RenderMetrics(); });
  }
  // Before the decision server starts: a metrics address that cannot be served stops start-up
  // before anything answers.
  std::unique_ptr<MetricsHttpServer> metrics_server;
  if (!options.metrics_listen.empty()) {
    absl::StatusOr<std::unique_ptr<MetricsHttpServer>> started = MetricsHttpServer::Start(
        options.metrics_listen, [&metrics] { return metrics.RenderPrometheusText(); });
    if (!started.ok()) {
      LogError(absl::StrCat("verdictd: --metrics_listen: ", started.status().message()));
      return kExitStartup;
    }
    metrics_server = *std::move(started);
    const std::string& listen = options.metrics_listen;
    LogInfo(absl::StrCat("verdictd metrics on ", listen.substr(0, listen.rfind(':')), ":",
                         metrics_server->port(), "/metrics"));
  }

  // Declared before the server, so they stop after the server has finished every call.
  WorkerPool workers(options.workers);
  DecisionRunner runner(
      **store, [] { return absl::Now(); }, observers.empty() ? nullptr : &observers,
      access_tokens->get(), workers, inline_slots, DecisionLimits{options.max_decision_steps});
  runner.set_max_pending_approvals(storage_bounds->max_pending_approvals);
  // With --decision_log_durability=sync an answer waits for its row's commit, on the decision
  // log's database: never on one of gRPC's few threads, which health checks need (a locked or
  // frozen log database would hold them), so every decision runs on a worker.
  const bool decisions_wait_for_log =
      admin_options->decision_log &&
      admin_options->decision_log_durability == DecisionLogDurability::kSync;
  runner.SetInlineAllowed(!decisions_wait_for_log);
  GrpcDecisionService decision_service(runner, metrics);
  ExtAuthzService ext_authz_service(runner, *std::move(ext_authz_config), metrics);
  absl::StatusOr<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(
      options.listen,
      {{v1::DecisionService::service_full_name(), &decision_service},
       {envoy::service::auth::v3::Authorization::service_full_name(), &ext_authz_service}},
      Reflection::kOn, kMaxReceiveMessageBytes, transport_limits);
  if (!server.ok()) {
    LogError(absl::StrCat("verdictd: ", server.status().message()));
    return kExitStartup;
  }

  // What the decision listener's connection guard ended (tests/reliability/RELIABILITY.md,
  // "Transport limits"): a client that trips these is broken or hostile.
  std::shared_ptr<const ConnectionGuard> guard = (*server)->connection_guard();
  metrics.AddExternalCounter(
      "verdict_connections_ended_idle_total",
      "Connections ended at --max_connections to make room for a newer one (the idlest).",
      [guard] { return guard->counters().evicted_idle; });
  metrics.AddExternalCounter(
      "verdict_connections_ended_oversized_headers_total",
      absl::StrCat("Connections ended for request metadata over ", kMaxMetadataBytes >> 10,
                   " KiB, or streams opened before the client acknowledged the server's settings "
                   "over ",
                   kMaxConcurrentStreams, "."),
      [guard] { return guard->counters().closed_for_header_block; });
  metrics.AddExternalCounter(
      "verdict_connections_ended_half_sent_total",
      "Connections ended for holding too much of half-sent messages (--max_memory_mib).",
      [guard] { return guard->counters().closed_for_unfinished; });

  // Health is right from the first probe; the monitor keeps it right from then on.
  (*server)->SetServing(ready.ok());
  auto monitor = std::make_unique<AvailabilityMonitor>(
      check_ready,
      [&server, &runner, &store, decisions_wait_for_log](const absl::Status& ready) {
        (*server)->SetServing(ready.ok());
        runner.SetInlineAllowed(ready.ok() && !decisions_wait_for_log);
        // The store stopped answering (a frozen database): the calls waiting on it give up now,
        // so they free gRPC's threads, which health checks need, at once.
        if (absl::IsDeadlineExceeded(ready)) (*store)->AbandonCallsInFlight();
        if (ready.ok()) {
          LogInfo("verdictd: policy store ready: SERVING");
        } else {
          LogWarning(absl::StrCat("verdictd: policy store not ready (", ready.message(),
                                  "): NOT_SERVING"));
        }
      },
      kAvailabilityInterval, /*answer_limit=*/kAvailabilityInterval);

  LogInfo(absl::StrCat("verdictd serving on ", (*server)->address(), " (db ",
                       DescribeStoreLocation(options.db_path), ")"));

  const int signal_number = AwaitTerminationSignal();
  LogInfo(absl::StrCat("verdictd: ", SignalName(signal_number),
                       ": finishing the calls in flight and stopping"));
  // Drain first: health says NOT_SERVING while calls are still served, so clients that watch
  // health (gRPC's client-side health checking, Envoy, Kubernetes) move their traffic away. A
  // call that reaches the listener in the instant it closes would be cancelled, not retried.
  monitor.reset();
  (*server)->SetServing(false);
  absl::SleepFor(kShutdownDrain);
  (*server)->Shutdown(kShutdownGrace);
  // After the decision listener, so the decision log receives every decision made.
  (*admin_plane)->Shutdown(kShutdownGrace);
  // The store, and with it the database, closes as `store` goes out of scope.
  LogInfo("verdictd: stopped");
  return 0;
}

}  // namespace
}  // namespace verdict

int main(int argc, char** argv) {
  // First, before any thread exists: every thread started later inherits the blocked mask, so
  // the signals reach only AwaitTerminationSignal.
  if (absl::Status blocked = verdict::BlockTerminationSignals(); !blocked.ok()) {
    verdict::LogError(absl::StrCat("verdictd: ", blocked.message()));
    return 1;
  }
  // abseil's deadlock detector keeps a lock graph on every Mutex acquisition: 2 to 5% of the
  // server's CPU under load (bench/PERFORMANCE.md). The tests keep the default detection.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // gRPC's and protobuf's own lines go through verdict's log (common/log.h), in the format
  // --log_format sets below.
  verdict::RouteGrpcLogToSink();
  verdict::QuietInvalidUtf8ParseErrors();
  absl::SetProgramUsageMessage(
      "verdict's policy-decision sidecar.\n"
      "  verdictd --listen=127.0.0.1:50051 --db=./verdict.db [--seed=policy.json] [--workers=4]");
  const std::vector<std::string> args(argv, argv + argc);
  switch (verdict::FindInfoRequest(args)) {
    case verdict::InfoRequest::kHelp:
      std::cout << verdict::FlagsHelp(absl::ProgramUsageMessage());
      return 0;
    case verdict::InfoRequest::kVersion:
      std::cout << verdict::VersionLine("verdictd");
      return 0;
    case verdict::InfoRequest::kNone:
      break;
  }
  // A flag that is unknown or holds a bad value is reported here, in verdictd's log, rather than
  // by abseil's parser with a bare line; --log_format is read on the way, wherever it stands.
  const absl::Status command_line = verdict::CheckCommandLine(args);
  if (absl::StatusOr<verdict::LogFormat> format =
          verdict::ParseLogFormat(absl::GetFlag(FLAGS_log_format));
      format.ok()) {
    verdict::SetLogFormat(*format);
  }
  if (!command_line.ok()) {
    verdict::LogError(absl::StrCat("verdictd: ", command_line.message()));
    return verdict::kExitConfiguration;
  }
  // Every setting is a --flag=value: a word left over ("--decision_log false") would otherwise be
  // dropped without a word, leaving the flag at its other value.
  const std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    verdict::LogError(absl::StrCat("verdictd: unexpected argument \"", positional[1],
                                   "\": every setting is a --flag=value (--decision_log=false, not "
                                   "--decision_log false)"));
    return verdict::kExitConfiguration;
  }
  // A --log_format that names no format is refused (saying so in text).
  absl::StatusOr<verdict::LogFormat> log_format =
      verdict::ParseLogFormat(absl::GetFlag(FLAGS_log_format));
  if (!log_format.ok()) {
    verdict::LogError(absl::StrCat("verdictd: ", log_format.status().message()));
    return verdict::kExitConfiguration;
  }
  verdict::SetLogFormat(*log_format);
  absl::StatusOr<verdict::ServerOptions> options = verdict::ServerOptionsFromFlags();
  if (!options.ok()) {
    verdict::LogError(absl::StrCat("verdictd: ", options.status().message()));
    return verdict::kExitConfiguration;
  }
  options->db_read = verdict::RepeatedFlagValues(args, "db_read");
  return verdict::Serve(*options);
}
