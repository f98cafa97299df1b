// `verdict principals ...`: the admin principals and their roles (decision/admin/roles.h). A
// secret is read from a file or standard input (--secret_file), never from the command line,
// where `ps` would show it; without one the server generates it and it is printed this once.
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/option_values.h"
#include "server/admin_secret.h"

namespace verdict {
namespace cli {
namespace {

// The secret --secret_file names (- for standard input), checked as the server checks it; ""
// in `secret` when the option is not given.
int ReadSecretOption(Session& session, std::string* secret) {
  if (!session.options().Has("secret_file")) return kExitOk;
  std::string document;
  if (int code = ReadDocument(session, "secret_file", &document); code != kExitOk) return code;
  *secret = std::string(absl::StripAsciiWhitespace(document));
  if (absl::Status valid = CheckAdminSecret(*secret); !valid.ok()) {
    return session.UsageError(absl::StrCat("--secret_file: ", valid.message()));
  }
  return kExitOk;
}

// The answer: as JSON or YAML the whole response (the secret in it when generated), else the
// principal, then the generated secret on its own line, said to be shown once.
template <typename Response>
void PrintWithSecret(Session& session, const Response& response) {
  if (session.format() != OutputFormat::kTable) return session.Print(response);
  session.Print(response.principal());
  if (response.secret().empty()) return;
  session.out() << "secret: " << response.secret() << "\n";
  session.Note("verdict: the principal's secret is shown only this once; keep it in a file");
}

}  // namespace

int CreatePrincipal(Session& session) {
  v1::CreatePrincipalRequest request;
  request.set_name(session.options().Get("name"));
  for (const std::string& role : SplitList(session.options().Get("roles"))) {
    request.add_roles(role);
  }
  for (const std::string& pattern : SplitList(session.options().Get("grant_patterns"))) {
    request.add_grant_patterns(pattern);
  }
  std::string secret;
  if (int code = ReadSecretOption(session, &secret); code != kExitOk) return code;
  request.set_secret(secret);
  v1::CreatePrincipalResponse response;
  int code = session.CallAdmin(&AdminStub::CreatePrincipal, request, &response);
  if (code == kExitOk) PrintWithSecret(session, response);
  return code;
}

int ListPrincipals(Session& session) {
  v1::ListPrincipalsResponse response;
  int code = session.CallAdmin(&AdminStub::ListPrincipals, v1::ListPrincipalsRequest(), &response);
  if (code == kExitOk) session.PrintList(response, response.principals(), "");
  return code;
}

namespace {

int SetEnabled(Session& session, bool enabled) {
  v1::SetPrincipalEnabledRequest request;
  request.set_name(session.options().Get("name"));
  request.set_enabled(enabled);
  v1::SetPrincipalEnabledResponse response;
  int code = session.CallAdmin(&AdminStub::SetPrincipalEnabled, request, &response);
  if (code == kExitOk) session.Print(response.principal());
  return code;
}

}  // namespace

int DisablePrincipal(Session& session) { return SetEnabled(session, false); }

int EnablePrincipal(Session& session) { return SetEnabled(session, true); }

int SetPrincipalRoles(Session& session) {
  v1::SetPrincipalRolesRequest request;
  request.set_name(session.options().Get("name"));
  for (const std::string& role : SplitList(session.options().Get("roles"))) {
    request.add_roles(role);
  }
  for (const std::string& pattern : SplitList(session.options().Get("grant_patterns"))) {
    request.add_grant_patterns(pattern);
  }
  v1::SetPrincipalRolesResponse response;
  int code = session.CallAdmin(&AdminStub::SetPrincipalRoles, request, &response);
  if (code == kExitOk) session.Print(response.principal());
  return code;
}

int SetPrincipalSecret(Session& session) {
  v1::SetPrincipalSecretRequest request;
  request.set_name(session.options().Get("name"));
  std::string secret;
  if (int code = ReadSecretOption(session, &secret); code != kExitOk) return code;
  request.set_secret(secret);
  v1::SetPrincipalSecretResponse response;
  int code = session.CallAdmin(&AdminStub::SetPrincipalSecret, request, &response);
  if (code == kExitOk) PrintWithSecret(session, response);
  return code;
}

}  // namespace cli
}  // namespace verdict
