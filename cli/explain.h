// A decision and Simulate's trace as people read them (`verdict check --explain`, and each
// failing case of `verdict policy test`): the verdict, then each stage the engine went through
// and each grant it tried, with why it matched or not and the delegation path it came through.
//
//   std::cout << ExplainDecision(simulate_response);
//   // ALLOW ALLOWED: agent agt_1 may read docs:1
//   //   stages:
//   //     pass  subject      agent agt_1 is active
//   //     ...
//   //   grants tried:
//   //     ALLOWED  perm_1 (own)  allow read on docs:*: ...
#ifndef VERDICT_CLI_EXPLAIN_H_
#define VERDICT_CLI_EXPLAIN_H_

#include <string>

#include "verdict/v1/decision.pb.h"

namespace verdict {
namespace cli {

// "allow read,write on docs:*", with its constraints when it has any.
std::string GrantText(const v1::Grant& grant);

// "agt_a -> agt_b via dlg_1" for a delegation path, origin first; "own" for none.
std::string DelegationPathText(const google::protobuf::RepeatedPtrField<v1::DelegationHop>& path);

// The decision's line ("ALLOW ALLOWED: message"), as `check` prints it, without a newline.
std::string DecisionLine(const v1::AuthorizeResponse& decision);

// The decision's line, then its trace, one step per line. Ends with a newline.
std::string ExplainDecision(const v1::SimulateResponse& simulation);

}  // namespace cli
}  // namespace verdict

#endif  // VERDICT_CLI_EXPLAIN_H_
