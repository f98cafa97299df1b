#include "store/test_support.h"

#include <cstdio>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace verdict {

std::string FreshDatabasePath(const std::string& suffix) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = absl::StrReplaceAll(
      absl::StrCat(test->test_suite_name(), "_", test->name(), suffix), {{"/", "_"}});
  std::string path = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name, ".db");
  for (const char* extension : {"", "-wal", "-shm"}) {
    std::remove(absl::StrCat(path, extension).c_str());
  }
  return path;
}

absl::Time ManualClock::Now() const {
  absl::MutexLock lock(&mutex_);
  return now_;
}

void ManualClock::Advance(absl::Duration by) {
  absl::MutexLock lock(&mutex_);
  now_ += by;
}

std::unique_ptr<SqliteStore> OpenTestStore(const std::string& path, ManualClock& clock,
                                           int connections) {
  SqliteOptions options;
  options.connections = connections;
  options.clock = clock.AsFunction();
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

std::unique_ptr<ReadSnapshot> BeginTestRead(PolicyStore& store) {
  absl::StatusOr<std::unique_ptr<ReadSnapshot>> snapshot = store.BeginRead();
  EXPECT_TRUE(snapshot.ok()) << snapshot.status();
  return snapshot.ok() ? *std::move(snapshot) : nullptr;
}

std::unique_ptr<WriteTransaction> BeginTestWrite(PolicyStore& store) {
  absl::StatusOr<std::unique_ptr<WriteTransaction>> transaction = store.BeginWrite();
  EXPECT_TRUE(transaction.ok()) << transaction.status();
  return transaction.ok() ? *std::move(transaction) : nullptr;
}

std::string OpenTestApproval(PolicyStore& store, absl::Time now, const std::string& agent_id,
                             const std::string& arguments_hash, int quorum, absl::Duration ttl) {
  std::unique_ptr<WriteTransaction> write = BeginTestWrite(store);
  if (write == nullptr) return "";
  absl::StatusOr<std::string> id = write->OpenApproval({.agent_id = agent_id,
                                                        .action = "pay",
                                                        .resource = "invoices:1",
                                                        .arguments_hash = arguments_hash,
                                                        .quorum = quorum,
                                                        .expires_at = now + ttl},
                                                       now);
  EXPECT_TRUE(id.ok()) << id.status();
  EXPECT_TRUE(write->Commit().ok());
  return id.ok() ? *id : "";
}

std::optional<ApprovalRequest> OpenTestApprovalSeen(PolicyStore& store, absl::Time now,
                                                    const std::string& agent_id,
                                                    const std::string& arguments_hash) {
  std::unique_ptr<ReadSnapshot> read = BeginTestRead(store);
  if (read == nullptr) return std::nullopt;
  absl::StatusOr<std::optional<ApprovalRequest>> found =
      read->FindOpenApproval(agent_id, "pay", "invoices:1", arguments_hash, now);
  EXPECT_TRUE(found.ok()) << found.status();
  return found.ok() ? *found : std::nullopt;
}

std::optional<SigningKey> ActiveSigningKeyIn(ReadSnapshot& snapshot, absl::string_view kid) {
  absl::StatusOr<std::optional<SigningKey>> key = snapshot.FindActiveSigningKey(kid);
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : std::nullopt;
}

bool TokenIdRevokedIn(ReadSnapshot& snapshot, absl::string_view jti) {
  absl::StatusOr<bool> revoked = snapshot.IsTokenIdRevoked(jti);
  EXPECT_TRUE(revoked.ok()) << revoked.status();
  return revoked.ok() && *revoked;
}

}  // namespace verdict
