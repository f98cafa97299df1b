#include "server/flags.h"

#include <cstdint>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "crypto/jwk.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "Where to serve gRPC: host:port (port 0 picks a free port) or unix:PATH.");
ABSL_FLAG(std::string, db, "./verdict.db",
          "The policy store: a SQLite file (a path or sqlite:///path; created and migrated "
          "when it does not exist) or a PostgreSQL database (postgresql://user@host/db; "
          "migrated, see store/POSTGRES.md).");
ABSL_FLAG(std::string, db_read, "",
          "A PostgreSQL synchronous standby that may serve decisions' reads beside the --db "
          "primary (postgresql://...); repeat the flag for several. Used only while the primary "
          "commits with synchronous_commit = remote_apply and waits for every standby it lists, "
          "checked every second; otherwise reads stay on the primary (store/POSTGRES.md).");
ABSL_FLAG(std::string, seed, "",
          "A policy JSON file to import when the database is empty (for demos and tests).");
ABSL_FLAG(std::string, policy_file, "",
          "A policy file (YAML or JSON, deploy/policy.schema.json) applied at start and again "
          "whenever it changes (a Kubernetes ConfigMap mount too): the store holds exactly what "
          "it declares among the objects its name manages. A bad file stops the start; later, "
          "it is refused and the previous policy keeps serving (README \"Policy as code\").");
ABSL_FLAG(int, workers, 4,
          "Threads for the decisions that write (a rate-limit slot, an approval) or wait for a "
          "free gRPC thread, each with its own store connection; read-only decisions run on "
          "gRPC's threads.");
ABSL_FLAG(int64_t, sqlite_mmap_mib, 2048,
          "MiB of a SQLite database file read through a memory map (SQLite caps it at 2048): a "
          "policy larger than the page cache reads nearly as fast as a small one. An I/O error "
          "on a mapped page then ends the process instead of answering UNAVAILABLE; 0 reads "
          "with read() only.");
ABSL_FLAG(bool, sqlite_keep_read_lock, true,
          "While decisions come, keep one read transaction open on a SQLite database so that "
          "each decision's own takes the write-ahead log's read lock without a system call "
          "(README \"Performance\"). It follows every commit and lets go after a second "
          "without decisions; false takes the lock in every decision, for a tool that needs "
          "the log to restart at once (a TRUNCATE checkpoint) while verdictd is busy.");
ABSL_FLAG(int64_t, max_decision_steps, verdict::kDefaultMaxDecisionSteps,
          "Store lookups and delegation steps one decision (an Authorize, each check of a "
          "BatchAuthorize, a ValidateToken's permission list, a Simulate, an ext_authz check) may "
          "take; past it the answer is DENY with EVALUATION_LIMIT, never ALLOW. The default is "
          "far above what any sensible policy needs.");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port where HTTP GET /metrics serves Prometheus metrics; empty for none.");
ABSL_FLAG(std::string, ext_authz_config, "",
          "A JSON file mapping Envoy ext_authz requests to decisions (method_actions, "
          "token_header, client_ip_header); empty for the defaults.");
ABSL_FLAG(std::string, log_format, "text",
          "How verdictd's own lines on standard error are written, each with a time and a "
          "level: text (one line per event) or json (one object per line). gRPC's lines too.");

ABSL_FLAG(std::string, decision_json_log, "",
          "Write one JSON line per decision (secrets redacted) to this file, or - for standard "
          "output; empty for none.");

ABSL_FLAG(std::string, jwks_file, "",
          "A JWK Set file of keys that sign JWT access tokens (each key with its \"kid\" and "
          "\"alg\"), read at start; keys added through the admin plane join them. Needs "
          "--jwt_issuer and --jwt_audience.");
ABSL_FLAG(std::string, jwt_issuer, "",
          "The \"iss\" every JWT access token must carry; empty: JWT access tokens are refused.");
ABSL_FLAG(std::string, jwt_audience, "",
          "The audience (\"aud\") every JWT access token must name.");
ABSL_FLAG(absl::Duration, jwt_leeway, absl::Seconds(30),
          "Clock skew forgiven on a JWT's exp, nbf and iat (at most 1h), with its unit: 30s.");
ABSL_FLAG(std::string, jwt_algorithms, "EdDSA,ES256,HS256",
          "The JWS algorithms accepted at all, comma-separated; each key narrows them further.");
ABSL_FLAG(absl::Duration, dpop_iat_window, absl::Seconds(60),
          "How far a DPoP proof's iat may lie from now, either way (more than 0, at most 1h; "
          "with its unit: 60s). "
          "Proofs are remembered for replay protection in this process only.");

ABSL_FLAG(int64_t, max_memory_mib, 256,
          "MiB of memory gRPC may hold for all the connections of a listener together (a "
          "ResourceQuota); under pressure it shrinks its buffers, refuses new connections and "
          "cancels calls that hold buffers.");
ABSL_FLAG(absl::Duration, max_call_duration, absl::Minutes(5),
          "The longest any call lives, with its unit (5m): every connection gets a GOAWAY at half "
          "of it and is closed, with the calls still on it, at the end; a call without a "
          "deadline, a half-sent message and an answer never read are ended by then. 1s to 24h.");
ABSL_FLAG(int, max_connections, 100,
          "Connections open at once on a listener; one more is closed as soon as it is "
          "accepted.");

namespace verdict {
namespace {

// The longest clock skew or proof age accepted: a revoked token id is kept a day past its
// token's expiry (store/signing_keys.h), far beyond it.
constexpr absl::Duration kMaxJwtClockWindow = absl::Hours(1);

absl::Status ValidateJwtOptions(const ServerOptions& options) {
  const bool has_issuer = !options.jwt_issuer.empty();
  const bool has_audience = !options.jwt_audience.empty();
  if (has_issuer != has_audience) {
    return absl::InvalidArgumentError(
        "--jwt_issuer and --jwt_audience: set both to accept JWT access tokens, or neither");
  }
  if (!options.jwks_file.empty() && !has_issuer) {
    return absl::InvalidArgumentError("--jwks_file: needs --jwt_issuer and --jwt_audience");
  }
  if (options.jwt_leeway < absl::ZeroDuration() || options.jwt_leeway > kMaxJwtClockWindow) {
    return absl::InvalidArgumentError(absl::StrCat("--jwt_leeway: must be 0 to 1h, got ",
                                                   absl::FormatDuration(options.jwt_leeway)));
  }
  if (options.dpop_iat_window <= absl::ZeroDuration() ||
      options.dpop_iat_window > kMaxJwtClockWindow) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dpop_iat_window: must be more than 0 and at most 1h, got ",
                     absl::FormatDuration(options.dpop_iat_window)));
  }
  if (options.jwt_algorithms.empty()) {
    return absl::InvalidArgumentError("--jwt_algorithms: name at least one of EdDSA, ES256, HS256");
  }
  for (const std::string& name : options.jwt_algorithms) {
    if (!JwsAlgorithmFromName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--jwt_algorithms: \"", name, "\" is not one of EdDSA, ES256, HS256"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateTransportOptions(const ServerOptions& options) {
  if (options.max_memory_mib < kMinMaxMemoryMib || options.max_memory_mib > kMaxMaxMemoryMib) {
    return absl::InvalidArgumentError(absl::StrCat("--max_memory_mib: must be ", kMinMaxMemoryMib,
                                                   "..", kMaxMaxMemoryMib, ", got ",
                                                   options.max_memory_mib));
  }
  if (options.max_call_duration < absl::Seconds(1) || options.max_call_duration > absl::Hours(24)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--max_call_duration: must be 1s to 24h, got ",
                     absl::FormatDuration(options.max_call_duration)));
  }
  if (options.max_connections < 1 || options.max_connections > kMaxMaxConnections) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_connections: must be 1..", kMaxMaxConnections, ", got ", options.max_connections));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateListenAddress(absl::string_view flag, absl::string_view listen) {
  if (absl::StartsWith(listen, "unix:")) {
    if (listen.size() == 5) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": unix: needs a path"));
    }
    return absl::OkStatus();
  }
  if (absl::StartsWith(listen, "/")) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": a socket path is written unix:", listen, ", got \"", listen, "\""));
  }
  const size_t colon = listen.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": expected host:port or unix:PATH, got \"", listen, "\""));
  }
  uint32_t port = 0;
  if (!absl::SimpleAtoi(listen.substr(colon + 1), &port) || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": port must be 0..65535, got \"", listen.substr(colon + 1), "\""));
  }
  return absl::OkStatus();
}

absl::Status CheckCommandLine(const std::vector<std::string>& args) {
  absl::Status first_error;
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-') continue;  // a positional argument: verdictd refuses it
    arg.remove_prefix(arg[1] == '-' ? 2 : 1);
    const size_t equals = arg.find('=');
    const absl::string_view name = arg.substr(0, equals);
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    std::string error;
    if (flag == nullptr) {
      // --nodecision_log: a boolean flag set to false.
      absl::CommandLineFlag* negated = absl::ConsumePrefix(&arg, "no") && equals == arg.npos
                                           ? absl::FindCommandLineFlag(arg)
                                           : nullptr;
      if (negated == nullptr || !negated->IsOfType<bool>()) {
        error = absl::StrCat("unknown flag --", name);
      } else if (!negated->ParseFrom("false", &error)) {
        error = absl::StrCat("--", name, ": ", error);
      }
    } else if (equals != absl::string_view::npos) {
      if (!flag->ParseFrom(arg.substr(equals + 1), &error)) {
        error = absl::StrCat("--", name, ": ", error);
      }
    } else if (flag->IsOfType<bool>()) {
      if (!flag->ParseFrom("true", &error)) error = absl::StrCat("--", name, ": ", error);
    } else if (i + 1 < args.size()) {
      // abseil reads "--workers 8" as "--workers=8".
      if (!flag->ParseFrom(args[++i], &error)) error = absl::StrCat("--", name, ": ", error);
    } else {
      error = absl::StrCat("--", name, ": missing value");
    }
    if (!error.empty() && first_error.ok()) first_error = absl::InvalidArgumentError(error);
  }
  return first_error;
}

std::vector<std::string> RepeatedFlagValues(const std::vector<std::string>& args,
                                            absl::string_view name) {
  std::vector<std::string> values;
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") break;
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    if (!absl::ConsumePrefix(&arg, name)) continue;
    if (absl::ConsumePrefix(&arg, "=")) {
      values.emplace_back(arg);
    } else if (arg.empty() && i + 1 < args.size()) {
      values.push_back(args[++i]);
    }
  }
  return values;
}

absl::StatusOr<ServerOptions> ServerOptionsFromFlags() {
  ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.db_path = absl::GetFlag(FLAGS_db);
  options.seed_path = absl::GetFlag(FLAGS_seed);
  options.policy_file_path = absl::GetFlag(FLAGS_policy_file);
  options.workers = absl::GetFlag(FLAGS_workers);
  options.sqlite_mmap_mib = absl::GetFlag(FLAGS_sqlite_mmap_mib);
  options.sqlite_keep_read_lock = absl::GetFlag(FLAGS_sqlite_keep_read_lock);
  options.max_decision_steps = absl::GetFlag(FLAGS_max_decision_steps);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.ext_authz_config_path = absl::GetFlag(FLAGS_ext_authz_config);
  options.decision_json_log_path = absl::GetFlag(FLAGS_decision_json_log);
  options.jwks_file = absl::GetFlag(FLAGS_jwks_file);
  options.jwt_issuer = absl::GetFlag(FLAGS_jwt_issuer);
  options.jwt_audience = absl::GetFlag(FLAGS_jwt_audience);
  options.jwt_leeway = absl::GetFlag(FLAGS_jwt_leeway);
  options.jwt_algorithms.clear();
  for (absl::string_view name :
       absl::StrSplit(absl::GetFlag(FLAGS_jwt_algorithms), ',', absl::SkipWhitespace())) {
    options.jwt_algorithms.emplace_back(absl::StripAsciiWhitespace(name));
  }
  options.dpop_iat_window = absl::GetFlag(FLAGS_dpop_iat_window);
  options.max_memory_mib = absl::GetFlag(FLAGS_max_memory_mib);
  options.max_call_duration = absl::GetFlag(FLAGS_max_call_duration);
  options.max_connections = absl::GetFlag(FLAGS_max_connections);
  if (absl::Status status = ValidateServerOptions(options); !status.ok()) return status;
  return options;
}

absl::Status ValidateServerOptions(const ServerOptions& options) {
  if (absl::Status status = ValidateListenAddress("--listen", options.listen); !status.ok()) {
    return status;
  }
  if (options.db_path.empty()) {
    return absl::InvalidArgumentError("--db: a file path or a postgresql:// URL is required");
  }
  if (options.workers < 1 || options.workers > kMaxWorkers) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workers: must be 1..", kMaxWorkers, ", got ", options.workers));
  }
  if (options.sqlite_mmap_mib < 0 || options.sqlite_mmap_mib > kMaxSqliteMmapMib) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--sqlite_mmap_mib: must be 0..", kMaxSqliteMmapMib, ", got ", options.sqlite_mmap_mib));
  }
  if (options.max_decision_steps < 1 || options.max_decision_steps > kMaxMaxDecisionSteps) {
    return absl::InvalidArgumentError(absl::StrCat("--max_decision_steps: must be 1..",
                                                   kMaxMaxDecisionSteps, ", got ",
                                                   options.max_decision_steps));
  }
  if (absl::Status status = ValidateJwtOptions(options); !status.ok()) return status;
  if (absl::Status status = ValidateTransportOptions(options); !status.ok()) return status;
  return absl::OkStatus();
}

}  // namespace verdict
