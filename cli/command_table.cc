#include "cli/command_table.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "cli/commands.h"
#include "decision/types.h"

namespace verdict {
namespace cli {

namespace {

constexpr char kDefaultDecisionAddress[] = "127.0.0.1:50051";

// Options every admin subcommand takes, and those of `check`.
std::vector<OptionSpec> AdminConnectionOptions() {
  return {
      {"admin_addr", "ADDR",
       absl::StrCat("verdictd's admin listener (unix:PATH or host:port; default $", kAdminAddrEnv,
                    ", else ", kDefaultAdminAddress, ")")},
      {"admin_secret_file", "PATH",
       absl::StrCat("file holding the admin secret (else $", kAdminSecretEnv,
                    ", else the session of `verdict login`)")},
      {"principal", "NAME",
       absl::StrCat("the admin principal whose secret this is (else $", kPrincipalEnv,
                    ", else admin)")},
      {"output", "FORMAT", "how to print the answer: table, json or yaml (also -o FORMAT)",
       Need::kOptional, "table"},
      {"json", "", "the same as --output=json", Need::kSwitch},
      {"timeout", "DURATION", "how long to wait for the answer", Need::kOptional, "10s"},
  };
}

std::vector<OptionSpec> DecisionConnectionOptions() {
  return {
      {"addr", "ADDR", "verdictd's decision listener (host:port or unix:PATH)", Need::kOptional,
       kDefaultDecisionAddress},
      {"output", "FORMAT", "how to print the answer: table, json or yaml (also -o FORMAT)",
       Need::kOptional, "table"},
      {"json", "", "the same as --output=json", Need::kSwitch},
      {"timeout", "DURATION", "how long to wait for the answer", Need::kOptional, "10s"},
  };
}

std::vector<OptionSpec> OutputOptions() {
  return {
      {"output", "FORMAT", "how to print the answer: table, json or yaml (also -o FORMAT)",
       Need::kOptional, "table"},
      {"json", "", "the same as --output=json", Need::kSwitch},
  };
}

std::vector<OptionSpec> PageOptions() {
  return {{"page_size", "N", "at most N per page (default 50, at most 1000)"},
          {"page_token", "TOKEN", "the next_page_token of the previous page"}};
}

// --description and the agents' other descriptive columns (decision/types.h).
std::vector<OptionSpec> AgentTextOptions() {
  std::vector<OptionSpec> options;
  for (const AgentTextColumn<Agent>& column : kAgentTextColumns<Agent>) {
    options.push_back({column.name, "TEXT", column.help, Need::kOptional});
  }
  return options;
}

std::vector<OptionSpec> With(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command>* const kCommands = new std::vector<Command>{
      {"agents", "create", "Create an agent; prints its token, which is shown only this once.",
       With(With({{"owner", "OWNER", "who answers for the agent", Need::kRequired},
                  {"name", "NAME", "a name people recognise", Need::kRequired}},
                 AgentTextOptions()),
            {{"kind", "KIND", "autonomous, delegated or service", Need::kOptional, "autonomous"},
             {"expires_at", "TIME", "RFC 3339 expiry (default: never)"},
             {"id", "ID", "an id of your own (agt_...); default: the server picks one"}}),
       false, CreateAgent},
      {"agents",
       "get",
       "Show one agent.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       GetAgent},
      {"agents", "list", "List agents by id, a page at a time.", PageOptions(), false, ListAgents},
      {"agents",
       "suspend",
       "Suspend an agent: it is denied until reactivated.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       SuspendAgent},
      {"agents",
       "reactivate",
       "Reactivate a suspended agent.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       ReactivateAgent},
      {"agents",
       "revoke",
       "Revoke an agent, for good.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       RevokeAgent},
      {"agents",
       "rotate",
       "Give an agent a new token; the old one works for the grace period only.",
       {{"id", "ID", "the agent's id", Need::kRequired},
        {"grace", "DURATION", "how long the old token keeps working", Need::kOptional, "0s"}},
       false,
       RotateToken},
      {"agents",
       "permissions",
       "List an agent's own permissions, oldest first.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       ListAgentPermissions},
      {"agents",
       "delegations",
       "List the live delegations into (in) and out of (out) an agent.",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       ListAgentDelegations},
      {"agents",
       "effective",
       "List what an agent holds now, its own and lent (ValidateToken's list).",
       {{"id", "ID", "the agent's id", Need::kRequired}},
       false,
       ListEffectivePermissions},
      {"permissions",
       "grant",
       "Grant an agent a permission.",
       {{"agent", "ID", "the agent's id", Need::kRequired},
        {"resource", "PATTERN", "docs:* or /api/**", Need::kRequired},
        {"actions", "LIST", "comma-separated actions, or *", Need::kRequired},
        {"effect", "EFFECT", "allow or deny", Need::kOptional, "allow"},
        {"constraints", "JSON", "constraints as a JSON object"}},
       false,
       GrantPermission},
      {"permissions",
       "revoke",
       "Remove a permission.",
       {{"id", "ID", "the permission's id (perm_...)", Need::kRequired}},
       false,
       RevokePermission},
      {"delegations",
       "create",
       "Lend part of an agent's rights to another; refused when it lends more than the lender "
       "holds, goes deeper than a max_depth allows, or closes a cycle.",
       {{"from", "ID", "the lending agent", Need::kRequired},
        {"to", "ID", "the receiving agent", Need::kRequired},
        {"resource", "PATTERN", "what is lent", Need::kRequired},
        {"actions", "LIST", "comma-separated actions", Need::kRequired},
        {"constraints", "JSON", "constraints on the lent permission"},
        {"max_depth", "N", "the longest delegation path this link may be on", Need::kOptional, "1"},
        {"expires_at", "TIME", "RFC 3339 expiry (default: never)"}},
       false,
       CreateDelegation},
      {"delegations",
       "revoke",
       "Revoke a delegation.",
       {{"id", "ID", "the delegation's id (dlg_...)", Need::kRequired}},
       false,
       RevokeDelegation},
      {"approvals", "list", "List approval requests, oldest first.",
       With({{"status", "STATUS", "pending, approved, denied, expired or used", Need::kOptional,
              "pending"}},
            PageOptions()),
       false, ListApprovals},
      {"approvals",
       "approve",
       "Approve a pending request as the calling principal (approver or admin); quorum "
       "distinct principals approve it.",
       {{"id", "ID", "the approval request's id (apr_...)", Need::kRequired},
        {"approver", "NAME", "optional: must name the calling principal", Need::kOptional}},
       false,
       ApproveRequest},
      {"approvals",
       "deny",
       "Deny a pending request as the calling principal.",
       {{"id", "ID", "the approval request's id (apr_...)", Need::kRequired},
        {"approver", "NAME", "optional: must name the calling principal", Need::kOptional}},
       false,
       DenyRequest},
      {"log", "query", "Show decision log rows, oldest first.",
       With(
           {{"agent", "ID", "only this agent's decisions"},
            {"since", "TIME", "RFC 3339: decided at or after"},
            {"until", "TIME", "RFC 3339: decided before"},
            {"verdict", "VERDICT", "allow, deny or needs_approval"},
            {"follow", "", "then print each new row as it is written, until Ctrl-C", Need::kSwitch},
            {"interval", "DURATION", "with --follow: how often to ask for new rows (100ms to 1m)",
             Need::kOptional, "1s"}},
           PageOptions()),
       false, QueryLog},
      {"log",
       "verify",
       "Check the hash chains of the decision log and the admin audit log; exit 2 and name the "
       "log and its first bad row when one is broken.",
       {},
       false,
       VerifyLog},
      {"policy",
       "export",
       "Write the whole policy as JSON.",
       {{"out", "PATH", "where to write it; - for standard output", Need::kOptional, "-"}},
       false,
       ExportPolicy},
      {"policy",
       "import",
       "Load a policy exported by `policy export` into an empty store, all or nothing.",
       {{"file", "PATH", "the policy JSON; - for standard input", Need::kRequired}},
       false,
       ImportPolicy},
      // Policy as code (issue 19).
      {"policy",
       "apply",
       "Make the store hold exactly what a policy file (YAML or JSON) declares for the objects its "
       "name manages, in one transaction; print the plan.",
       {{"file", "PATH", "the policy file (.yaml, .yml or .json); - for standard input",
         Need::kRequired},
        {"dry-run", "", "print the plan and write nothing", Need::kSwitch}},
       false,
       ApplyPolicy},
      {"policy",
       "diff",
       "Print what `policy apply` would change, and write nothing.",
       {{"file", "PATH", "the policy file (.yaml, .yml or .json); - for standard input",
         Need::kRequired}},
       false,
       DiffPolicy},
      {"policy",
       "test",
       "Run a file of expected decisions against a policy file, with no server, by the code "
       "verdictd decides with; print N passed, N failed and each failure's trace. Exit 0 when "
       "all pass, 1 when one fails, 2 when a file cannot be used.",
       {{"policy", "PATH", "the policy file (JSON as policy export writes it, or YAML)",
         Need::kRequired},
        {"tests", "PATH", "the tests file (YAML or JSON; see README.md)", Need::kRequired}},
       false,
       TestPolicy,
       /*offline=*/true,
       "Exit codes:\n"
       "  0  every case passed\n"
       "  1  a case failed (or a usage error)\n"
       "  2  a file cannot be used: unreadable, malformed (file and line named), too large\n"},
      {"tokens",
       "revoke-jti",
       "Revoke a JWT access token by its jti: it is refused from the next decision on.",
       {{"jti", "ID", "the token's jti", Need::kRequired},
        {"expires_at", "TIME", "the token's exp, RFC 3339 (the revocation outlives it)",
         Need::kRequired}},
       false,
       RevokeTokenId},
      {"keys",
       "add",
       "Add a key that signs JWT access tokens, under its JWK's kid.",
       {{"jwk", "PATH", "the JWK (public, or an HS256 secret); - for standard input",
         Need::kRequired},
        {"alg", "LIST", "the algorithms it verifies: EdDSA, ES256 or HS256", Need::kRequired}},
       false,
       AddSigningKey},
      {"keys",
       "rotate",
       "Replace the content of the active key with the JWK's kid; counts at once.",
       {{"jwk", "PATH", "the new JWK under the same kid; - for standard input", Need::kRequired},
        {"alg", "LIST", "the algorithms it verifies: EdDSA, ES256 or HS256", Need::kRequired}},
       false,
       RotateSigningKey},
      {"keys",
       "retire",
       "Retire a signing key: the tokens it signed are refused from the next decision on.",
       {{"kid", "KID", "the key's kid", Need::kRequired}},
       false,
       RetireSigningKey},
      {"keys",
       "list",
       "List the signing keys kept in the store, oldest first.",
       {},
       false,
       ListSigningKeys},
      {"principals",
       "create",
       "Create an admin principal; without --secret_file its secret is generated and shown "
       "only this once.",
       {{"name", "NAME", "1 to 64 of [A-Za-z0-9._@-]", Need::kRequired},
        {"roles", "LIST", "comma-separated: admin, operator, issuer, approver, auditor",
         Need::kRequired},
        {"grant_patterns", "LIST", "for an issuer: comma-separated resource patterns it may grant"},
        {"secret_file", "PATH", "the principal's secret; - for standard input"}},
       false,
       CreatePrincipal},
      {"principals",
       "list",
       "List the admin principals, their roles and whether enabled.",
       {},
       false,
       ListPrincipals},
      {"principals",
       "disable",
       "Disable a principal: refused from its next call on (never the last enabled admin).",
       {{"name", "NAME", "the principal", Need::kRequired}},
       false,
       DisablePrincipal},
      {"principals",
       "enable",
       "Enable a disabled principal.",
       {{"name", "NAME", "the principal", Need::kRequired}},
       false,
       EnablePrincipal},
      {"principals",
       "set-roles",
       "Replace a principal's roles (and grant patterns); counts from its next call on.",
       {{"name", "NAME", "the principal", Need::kRequired},
        {"roles", "LIST", "comma-separated: admin, operator, issuer, approver, auditor",
         Need::kRequired},
        {"grant_patterns", "LIST", "for an issuer: comma-separated resource patterns"}},
       false,
       SetPrincipalRoles},
      {"principals",
       "set-secret",
       "Replace a principal's secret; without --secret_file one is generated and shown once.",
       {{"name", "NAME", "the principal", Need::kRequired},
        {"secret_file", "PATH", "the new secret; - for standard input"}},
       false,
       SetPrincipalSecret},
      {"",
       "login",
       "Exchange the admin secret (--admin_secret_file, $VERDICT_ADMIN_SECRET, else asked for on "
       "standard input) for an admin session, kept in $XDG_CONFIG_HOME/verdict/session (0600); "
       "later commands to the same --admin_addr use it when no secret is given.",
       {{"ttl", "DURATION", "how long the session lasts (default: verdictd's, 1h)"}},
       false,
       Login},
      {"", "logout", "Revoke the session of verdict login and delete its file.", {}, false, Logout},
      {"",
       "check",
       "Ask the decision port whether a call is allowed; exit 0 for ALLOW, 2 otherwise.",
       {{"agent", "ID", "the subject, by agent id"},
        {"token", "TOKEN", "the subject, by agent token"},
        {"action", "ACTION", "the action", Need::kRequired},
        {"resource", "RESOURCE", "the resource", Need::kRequired},
        {"args", "JSON", "the call's arguments, a JSON object"},
        {"ip", "IP", "the caller's IP address"},
        {"request_id", "ID", "echoed back and logged"},
        {"dpop", "PROOF", "the DPoP proof for a JWT access token bound to a key"},
        {"http_method", "METHOD", "the HTTP method the DPoP proof is for (POST)"},
        {"http_uri", "URI", "the HTTP URI the DPoP proof is for"},
        {"explain", "",
         "decide by Simulate instead (the same decision, no side effects: no rate slot spent, no "
         "approval opened or used, nothing logged) and print each step of it",
         Need::kSwitch}},
       true,
       Check},
      // The admin audit log (issue 18 item 4).
      {"audit", "query", "Show admin audit log rows (who changed what), oldest first.",
       With({{"principal", "NAME", "only this principal's calls"},
             {"object", "ID",
              "only calls naming this agent, permission, delegation, approval, "
              "kid, jti or principal"},
             {"call", "METHOD", "only this AdminService method (RevokeAgent)"},
             {"since", "TIME", "RFC 3339: recorded at or after"},
             {"until", "TIME", "RFC 3339: recorded before"}},
            PageOptions()),
       false, QueryAudit},
  };
  return *kCommands;
}

std::vector<OptionSpec> AllOptions(const Command& command) {
  if (command.offline) return With(command.options, OutputOptions());
  return With(command.options,
              command.decision_port ? DecisionConnectionOptions() : AdminConnectionOptions());
}

std::string CommandLine(const Command& command) {
  return command.group.empty() ? command.name : absl::StrCat(command.group, " ", command.name);
}

bool IsSwitchOfAnyCommand(absl::string_view arg) {
  if (!absl::ConsumePrefix(&arg, "--")) return false;
  if (arg == "help") return true;
  for (const Command& command : Commands()) {
    for (const OptionSpec& spec : AllOptions(command)) {
      if (spec.need == Need::kSwitch && SameOptionName(spec.name, arg)) return true;
    }
  }
  return false;
}

bool IsGroup(absl::string_view word) {
  for (const Command& command : Commands()) {
    if (!command.group.empty() && command.group == word) return true;
  }
  return false;
}

}  // namespace cli
}  // namespace verdict
