// The second process of tests/freshness_test.cc: opens a verdict SQLite database through the
// store's PolicyAdmin, commits one revocation, and exits (0 once it is committed).
//
//   revoke_tool DB_PATH revoke-agent|suspend-agent AGENT_ID
//   revoke_tool DB_PATH revoke-delegation DELEGATION_ID
//   revoke_tool DB_PATH revoke-permission PERMISSION_ID
#include <iostream>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "decision/types.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

absl::Status Revoke(PolicyAdmin& admin, const std::string& command, const std::string& id) {
  if (command == "revoke-agent") return admin.SetAgentStatus(id, AgentStatus::kRevoked).status();
  if (command == "suspend-agent") {
    return admin.SetAgentStatus(id, AgentStatus::kSuspended).status();
  }
  if (command == "revoke-delegation") return admin.RevokeDelegation(id);
  if (command == "revoke-permission") return admin.RevokePermission(id);
  return absl::InvalidArgumentError("unknown command " + command);
}

int Run(const std::string& db_path, const std::string& command, const std::string& id) {
  SqliteOptions options;
  options.connections = 1;
  options.create_if_missing = false;  // the server's database, never a new one
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(db_path, options);
  if (!store.ok()) {
    std::cerr << "revoke_tool: " << store.status() << "\n";
    return 1;
  }
  if (absl::Status revoked = Revoke((*store)->admin(), command, id); !revoked.ok()) {
    std::cerr << "revoke_tool: " << command << " " << id << ": " << revoked << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace verdict

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: revoke_tool DB_PATH "
                 "revoke-agent|suspend-agent|revoke-delegation|revoke-permission ID\n";
    return 2;
  }
  return verdict::Run(argv[1], argv[2], argv[3]);
}
