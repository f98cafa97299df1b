// What a run of `verdict` reads and writes (cli/verdict_cli.h): its streams and its environment,
// handed in so that tests can run it in process.
//
//   std::ostringstream out, err;
//   std::istringstream in;
//   CliEnvironment env{out, err, in, [](const std::string&) { return std::nullopt; }};
#ifndef VERDICT_CLI_CLI_ENVIRONMENT_H_
#define VERDICT_CLI_CLI_ENVIRONMENT_H_

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace verdict {

struct CliEnvironment {
  std::ostream& out;  // results: text, or JSON with --json
  std::ostream& err;  // errors and notes
  std::istream& in;   // `policy import --file=-`
  std::function<std::optional<std::string>(const std::string&)> getenv;
};

inline constexpr char kAdminSecretEnv[] = "VERDICT_ADMIN_SECRET";
// The admin listener when --admin_addr is not given, before kDefaultAdminAddress.
inline constexpr char kAdminAddrEnv[] = "VERDICT_ADMIN_ADDR";
// verdictd's default admin listener, next to its default database (./verdict.db).
inline constexpr char kDefaultAdminAddress[] = "unix:verdict.db.admin.sock";
// The admin principal the secret belongs to, when --principal is not given ("admin" when
// neither is).
inline constexpr char kPrincipalEnv[] = "VERDICT_PRINCIPAL";

}  // namespace verdict

#endif  // VERDICT_CLI_CLI_ENVIRONMENT_H_
