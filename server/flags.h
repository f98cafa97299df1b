// verdictd's command line, read once into ServerOptions and checked before anything starts.
//
//   absl::ParseCommandLine(argc, argv);
//   absl::StatusOr<ServerOptions> options = ServerOptionsFromFlags();
//   if (!options.ok()) { std::cerr << options.status() << "\n"; return 2; }
#ifndef VERDICT_SERVER_FLAGS_H_
#define VERDICT_SERVER_FLAGS_H_

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "decision/budget.h"

ABSL_DECLARE_FLAG(std::string, listen);
ABSL_DECLARE_FLAG(std::string, db);
ABSL_DECLARE_FLAG(std::string, db_read);
ABSL_DECLARE_FLAG(std::string, seed);
ABSL_DECLARE_FLAG(std::string, policy_file);
ABSL_DECLARE_FLAG(int, workers);
ABSL_DECLARE_FLAG(int64_t, sqlite_mmap_mib);
ABSL_DECLARE_FLAG(bool, sqlite_keep_read_lock);
ABSL_DECLARE_FLAG(int64_t, max_decision_steps);
ABSL_DECLARE_FLAG(std::string, metrics_listen);
ABSL_DECLARE_FLAG(std::string, ext_authz_config);
ABSL_DECLARE_FLAG(std::string, decision_json_log);
ABSL_DECLARE_FLAG(std::string, log_format);
ABSL_DECLARE_FLAG(std::string, jwks_file);
ABSL_DECLARE_FLAG(std::string, jwt_issuer);
ABSL_DECLARE_FLAG(std::string, jwt_audience);
ABSL_DECLARE_FLAG(absl::Duration, jwt_leeway);
ABSL_DECLARE_FLAG(std::string, jwt_algorithms);
ABSL_DECLARE_FLAG(absl::Duration, dpop_iat_window);
ABSL_DECLARE_FLAG(int64_t, max_memory_mib);
ABSL_DECLARE_FLAG(absl::Duration, max_call_duration);
ABSL_DECLARE_FLAG(int, max_connections);

namespace verdict {

inline constexpr int kMaxWorkers = 256;
// A memory map larger than the address space could hold is a typo, not a setting.
inline constexpr int64_t kMaxSqliteMmapMib = int64_t{1} << 20;
// Below 16 MiB gRPC would be under memory pressure with no traffic at all.
inline constexpr int64_t kMinMaxMemoryMib = 16;
inline constexpr int64_t kMaxMaxMemoryMib = int64_t{1} << 20;
inline constexpr int kMaxMaxConnections = 1 << 20;
// --max_decision_steps beyond this would let one call hold a thread for minutes.
inline constexpr int64_t kMaxMaxDecisionSteps = 10'000'000;

struct ServerOptions {
  // "host:port" ("127.0.0.1:50051", "[::1]:0"; port 0 picks a free one) or "unix:PATH".
  std::string listen;
  // The SQLite file; created and migrated when new.
  std::string db_path;
  // PostgreSQL synchronous standbys that may serve decisions' reads (--db_read, repeatable).
  std::vector<std::string> db_read;
  // A policy JSON file (app/policy_json.h) imported when the database is empty; "" for none.
  std::string seed_path;
  // A policy file applied at start and whenever it changes (server/policy_file_watch.h); "" for
  // none.
  std::string policy_file_path;
  // Threads that make the decisions that cannot run on gRPC's threads (server/decision_runner.h),
  // each with a store connection of its own.
  int workers = 4;
  // MiB of a SQLite database read through a memory map (SqliteOptions::mmap_bytes); 0 for none.
  int64_t sqlite_mmap_mib = 2048;
  // Keep a SQLite database's write-ahead-log read lock while decisions come
  // (SqliteOptions::keep_read_lock).
  bool sqlite_keep_read_lock = true;
  // Store lookups and delegation steps one decision may take (decision/budget.h); past it the
  // answer is DENY with EVALUATION_LIMIT.
  int64_t max_decision_steps = kDefaultMaxDecisionSteps;
  // "host:port" where HTTP GET /metrics answers in the Prometheus text format; "" for none.
  std::string metrics_listen;
  // The JSON file that maps Envoy ext_authz requests to decisions (server/http_mapping.h);
  // "" for the defaults.
  std::string ext_authz_config_path;
  // Where one JSON line per decision goes (server/decision_json_log.h): a file, "-" for standard
  // output, "" for none.
  std::string decision_json_log_path;

  // JWT access tokens (server/access_tokens.h): accepted when jwt_issuer is set, signed by a key
  // of the JWK Set file (read at start) or an active key in the store.
  std::string jwks_file;  // "" for store keys only
  std::string jwt_issuer;
  std::string jwt_audience;
  absl::Duration jwt_leeway = absl::Seconds(30);
  std::vector<std::string> jwt_algorithms = {"EdDSA", "ES256", "HS256"};
  absl::Duration dpop_iat_window = absl::Seconds(60);

  // Transport limits of every listener (server/transport_limits.h).
  int64_t max_memory_mib = 256;
  absl::Duration max_call_duration = absl::Minutes(5);
  int max_connections = 100;
};

absl::StatusOr<ServerOptions> ServerOptionsFromFlags();

// Every value a repeatable flag (--db_read) was given in `args`, in order ("--name=value" and
// "--name value"); abseil keeps only the last.
std::vector<std::string> RepeatedFlagValues(const std::vector<std::string>& args,
                                            absl::string_view name);

// Checks `args` (args[0] is the program; a "--" ends the flags) as absl::ParseCommandLine will
// read them, setting each flag it can parse, so that verdictd reports a flag that is unknown or
// holds a bad value in its own log (with a time and a level, in --log_format's format, which is
// set even when it comes after the bad flag) instead of abseil's bare line on stderr.
// INVALID_ARGUMENT naming the first bad flag.
absl::Status CheckCommandLine(const std::vector<std::string>& args);

// INVALID_ARGUMENT naming `flag` unless `listen` is host:port (port 0..65535) or unix:PATH.
absl::Status ValidateListenAddress(absl::string_view flag, absl::string_view listen);

// INVALID_ARGUMENT naming the flag that is wrong.
absl::Status ValidateServerOptions(const ServerOptions& options);

}  // namespace verdict

#endif  // VERDICT_SERVER_FLAGS_H_
