// Helpers for the store's tests: fresh database files under TEST_TMPDIR and a settable clock.
#ifndef VERDICT_STORE_TEST_SUPPORT_H_
#define VERDICT_STORE_TEST_SUPPORT_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "decision/policy_store.h"
#include "decision/types.h"
#include "store/sqlite_store.h"

namespace verdict {

// A path under TEST_TMPDIR that no file has yet, named after the running test plus `suffix`.
std::string FreshDatabasePath(const std::string& suffix = "");

// A clock the test moves by hand; thread-safe.
class ManualClock {
 public:
  explicit ManualClock(absl::Time start = absl::FromUnixSeconds(1'800'000'000)) : now_(start) {}
  absl::Time Now() const;
  void Advance(absl::Duration by);
  // For SqliteOptions::clock; the ManualClock must outlive the store.
  std::function<absl::Time()> AsFunction() {
    return [this] { return Now(); };
  }

 private:
  mutable absl::Mutex mutex_;
  absl::Time now_ ABSL_GUARDED_BY(mutex_);
};

// Opens a store on `path` with `clock`; fails the test (and returns null) when it cannot.
std::unique_ptr<SqliteStore> OpenTestStore(const std::string& path, ManualClock& clock,
                                           int connections = 2);

// A read snapshot or a write transaction of `store`; fails the test (and returns null) when the
// store refuses one.
std::unique_ptr<ReadSnapshot> BeginTestRead(PolicyStore& store);
std::unique_ptr<WriteTransaction> BeginTestWrite(PolicyStore& store);

// Opens and commits, at `now`, a request by `agent_id` to pay invoices:1 with the arguments
// `arguments_hash`, needing `quorum` votes and expiring `ttl` later. Its id, or "" (and a failed
// test) when the store refuses.
std::string OpenTestApproval(PolicyStore& store, absl::Time now, const std::string& agent_id,
                             const std::string& arguments_hash, int quorum = 1,
                             absl::Duration ttl = absl::Hours(1));
// The open request OpenTestApproval made for that agent and those arguments, as a decision reads
// it at `now`.
std::optional<ApprovalRequest> OpenTestApprovalSeen(PolicyStore& store, absl::Time now,
                                                    const std::string& agent_id,
                                                    const std::string& arguments_hash);

// What `snapshot` says of a JWT signing key (the active key with this kid, or nullopt) and of an
// access token's id (revoked or not); they fail the test when the store errs.
std::optional<SigningKey> ActiveSigningKeyIn(ReadSnapshot& snapshot, absl::string_view kid);
bool TokenIdRevokedIn(ReadSnapshot& snapshot, absl::string_view jti);

}  // namespace verdict

#endif  // VERDICT_STORE_TEST_SUPPORT_H_
