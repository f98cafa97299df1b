// The commands of `verdict` (cli/command_table.h lists them with their options), one function
// each, run against a Session; each returns the exit code (cli/exit_codes.h). Defined by group:
// cli/agent_commands.cc, cli/grant_commands.cc (permissions and delegations),
// cli/approval_commands.cc, cli/log_commands.cc, cli/policy_commands.cc, cli/key_commands.cc
// (signing keys and revoked token ids), cli/principal_commands.cc and cli/check_command.cc.
//
//   int code = CreateAgent(session);
#ifndef VERDICT_CLI_COMMANDS_H_
#define VERDICT_CLI_COMMANDS_H_

#include <functional>

#include "cli/session.h"

namespace verdict {
namespace cli {

int CreateAgent(Session& session);
int GetAgent(Session& session);
int ListAgents(Session& session);
int SuspendAgent(Session& session);
int ReactivateAgent(Session& session);
int RevokeAgent(Session& session);
int RotateToken(Session& session);
// What an agent may do (cli/agent_view_commands.cc).
int ListAgentPermissions(Session& session);
int ListAgentDelegations(Session& session);
int ListEffectivePermissions(Session& session);

int GrantPermission(Session& session);
int RevokePermission(Session& session);
int CreateDelegation(Session& session);
int RevokeDelegation(Session& session);

int ListApprovals(Session& session);
int ApproveRequest(Session& session);
int DenyRequest(Session& session);

int QueryLog(Session& session);
// Verifies the decision log's chain and the admin audit log's.
int VerifyLog(Session& session);
int QueryAudit(Session& session);

int ExportPolicy(Session& session);
int ImportPolicy(Session& session);
int ApplyPolicy(Session& session);
int DiffPolicy(Session& session);
// `policy test` (cli/policy_test_command.cc): no server.
int TestPolicy(Session& session);

int RevokeTokenId(Session& session);
int AddSigningKey(Session& session);
int RotateSigningKey(Session& session);
int RetireSigningKey(Session& session);
int ListSigningKeys(Session& session);

// `login` and `logout`: an admin session kept for later commands (cli/session_file.h).
int Login(Session& session);
int Logout(Session& session);
// Admin principals and their roles (cli/principal_commands.cc).
int CreatePrincipal(Session& session);
int ListPrincipals(Session& session);
int DisablePrincipal(Session& session);
int EnablePrincipal(Session& session);
int SetPrincipalRoles(Session& session);
int SetPrincipalSecret(Session& session);

// `check`: one Authorize on the decision port.
int Check(Session& session);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_COMMANDS_H_
