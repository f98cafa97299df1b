#include "server/seed.h"

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

constexpr char kAlicePolicy[] = R"({
  "version": 1,
  "agents": [{"id": "agt_alice", "owner": "tests", "name": "alice", "kind": "autonomous",
              "status": "active"}],
  "permissions": [{"id": "perm_alice_docs", "agent_id": "agt_alice", "resource": "docs:*",
                   "actions": ["read"], "effect": "allow"}],
  "delegations": []
})";

constexpr char kBobPolicy[] = R"({
  "version": 1,
  "agents": [{"id": "agt_bob", "owner": "tests", "name": "bob", "kind": "service",
              "status": "active"}],
  "permissions": [],
  "delegations": []
})";

std::unique_ptr<SqliteStore> OpenStore(const std::string& name, bool defer_open_errors = false) {
  SqliteOptions options;
  options.defer_open_errors = defer_open_errors;
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open(std::string(std::getenv("TEST_TMPDIR")) + "/" + name, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(SeedIfEmptyTest, ImportsThePolicyIntoAnEmptyStore) {
  std::unique_ptr<SqliteStore> store = OpenStore("empty.db");
  ASSERT_NE(store, nullptr);
  absl::StatusOr<SeedOutcome> seeded = SeedIfEmpty(store->admin(), kAlicePolicy);
  ASSERT_TRUE(seeded.ok()) << seeded.status();
  EXPECT_EQ(*seeded, SeedOutcome::kImported);
  absl::StatusOr<Agent> alice = store->admin().GetAgent("agt_alice");
  ASSERT_TRUE(alice.ok()) << alice.status();
  EXPECT_EQ(alice->name, "alice");
}

TEST(SeedIfEmptyTest, LeavesAStoreThatHoldsAPolicyAsItIs) {
  std::unique_ptr<SqliteStore> store = OpenStore("seeded.db");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(SeedIfEmpty(store->admin(), kAlicePolicy).ok());
  // A restart with the same or another seed changes nothing, and says so.
  EXPECT_EQ(SeedIfEmpty(store->admin(), kAlicePolicy).value_or(SeedOutcome::kImported),
            SeedOutcome::kStoreHeldAPolicy);
  EXPECT_EQ(SeedIfEmpty(store->admin(), kBobPolicy).value_or(SeedOutcome::kImported),
            SeedOutcome::kStoreHeldAPolicy);
  EXPECT_TRUE(store->admin().GetAgent("agt_alice").ok());
  EXPECT_EQ(store->admin().GetAgent("agt_bob").status().code(), absl::StatusCode::kNotFound);
}

TEST(SeedIfEmptyTest, RefusesADocumentThatIsNotAPolicy) {
  std::unique_ptr<SqliteStore> store = OpenStore("refused.db");
  ASSERT_NE(store, nullptr);
  for (const char* bad : {"", "{not json", R"({"version": 1, "agents": [{"id": "agt_x"}]})",
                          R"({"version": 1, "agents": [{"id": "agt_x", "owner": "o", "name": "n",
                              "kind": "robot", "status": "active"}]})"}) {
    EXPECT_EQ(SeedIfEmpty(store->admin(), bad).status().code(), absl::StatusCode::kInvalidArgument)
        << bad;
  }
  absl::StatusOr<bool> empty = store->admin().IsEmpty();
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(*empty) << "a refused seed writes nothing";
}

TEST(SeedIfEmptyTest, ABrokenSeedIsRefusedEvenWhenTheStoreHoldsAPolicy) {
  std::unique_ptr<SqliteStore> store = OpenStore("seeded-then-broken.db");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(SeedIfEmpty(store->admin(), kAlicePolicy).ok());
  EXPECT_EQ(SeedIfEmpty(store->admin(), "{\"version\": 1, \"agents\": [").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SeedIfEmptyTest, StoreThatCannotBeUsedReportsUnavailable) {
  std::unique_ptr<SqliteStore> store =
      OpenStore("no/such/directory/verdict.db", /*defer_open_errors=*/true);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(SeedIfEmpty(store->admin(), kAlicePolicy).status().code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace verdict
