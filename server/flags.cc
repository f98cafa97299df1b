#include "server/flags.h"

#include <cstdint>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051",
          "Where to serve gRPC: host:port (port 0 picks a free port) or unix:PATH.");
ABSL_FLAG(std::string, db, "./verdict.db",
          "The policy store: a SQLite file (a path or sqlite:///path; created and migrated "
          "when it does not exist) or a PostgreSQL database (postgresql://user@host/db; "
          "migrated, see store/POSTGRES.md).");
ABSL_FLAG(std::string, seed, "",
          "A policy JSON file to import when the database is empty (for demos and tests).");
ABSL_FLAG(int, workers, 4,
          "Decision threads, each with its own store connection: how many decisions run at "
          "once (gRPC's own threads only parse and answer).");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port where HTTP GET /metrics serves Prometheus metrics; empty for none.");
ABSL_FLAG(std::string, ext_authz_config, "",
          "A JSON file mapping Envoy ext_authz requests to decisions (method_actions, "
          "token_header, client_ip_header); empty for the defaults.");
ABSL_FLAG(std::string, decision_json_log, "",
          "Write one JSON line per decision (secrets redacted) to this file, or - for standard "
          "output; empty for none.");

namespace verdict {
namespace {

absl::Status ValidateListenAddress(absl::string_view listen) {
  if (absl::StartsWith(listen, "unix:")) {
    if (listen.size() == 5) return absl::InvalidArgumentError("--listen: unix: needs a path");
    return absl::OkStatus();
  }
  const size_t colon = listen.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen: expected host:port or unix:PATH, got \"", listen, "\""));
  }
  uint32_t port = 0;
  if (!absl::SimpleAtoi(listen.substr(colon + 1), &port) || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--listen: port must be 0..65535, got \"", listen.substr(colon + 1), "\""));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerOptions> ServerOptionsFromFlags() {
  ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.db_path = absl::GetFlag(FLAGS_db);
  options.seed_path = absl::GetFlag(FLAGS_seed);
  options.workers = absl::GetFlag(FLAGS_workers);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.ext_authz_config_path = absl::GetFlag(FLAGS_ext_authz_config);
  options.decision_json_log_path = absl::GetFlag(FLAGS_decision_json_log);
  if (absl::Status status = ValidateServerOptions(options); !status.ok()) return status;
  return options;
}

absl::Status ValidateServerOptions(const ServerOptions& options) {
  if (absl::Status status = ValidateListenAddress(options.listen); !status.ok()) return status;
  if (options.db_path.empty()) {
    return absl::InvalidArgumentError("--db: a file path or a postgresql:// URL is required");
  }
  if (options.workers < 1 || options.workers > kMaxWorkers) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workers: must be 1..", kMaxWorkers, ", got ", options.workers));
  }
  return absl::OkStatus();
}

}  // namespace verdict
