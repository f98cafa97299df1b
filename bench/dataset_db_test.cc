// The generated file must hold exactly what the store's own import would write, decide as the
// dataset predicts, and be generated once.
#include "bench/dataset_db.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/stat.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/dataset.h"
#include "crypto/sha256.h"
#include "decision/authorizer.h"
#include "gtest/gtest.h"
#include "store/sqlite_store.h"
#include "store/statements.h"

namespace verdict::bench {
namespace {

constexpr int64_t kAgents = 122;

std::string TestDir(absl::string_view name) {
  return absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
}

absl::Time CreatedAt() { return absl::FromUnixSeconds(kCreatedAtUnixSeconds); }

// Every field of the policy, one line per row, so two policies compare as text.
std::string Render(const PolicyContents& policy) {
  std::vector<std::string> lines;
  for (const StoredAgent& stored : policy.agents) {
    const Agent& a = stored.agent;
    lines.push_back(
        absl::StrCat("agent ", a.id, " ", a.owner, " ", a.name, " ", static_cast<int>(a.kind), " ",
                     static_cast<int>(a.status), " ", absl::FormatTime(a.expires_at), " ",
                     a.token_prefix, " ", absl::FormatTime(a.created_at), " ",
                     absl::FormatTime(a.updated_at), " ", HexEncode(stored.token_sha256)));
  }
  for (const Permission& p : policy.permissions) {
    lines.push_back(absl::StrCat("permission ", p.id, " ", p.agent_id, " ", p.resource, " ",
                                 absl::StrJoin(p.actions, ","), " ", static_cast<int>(p.effect),
                                 " ", p.constraints_json, " ", absl::FormatTime(p.created_at)));
  }
  for (const Delegation& d : policy.delegations) {
    std::string lent;
    for (const LentPermission& l : d.permissions) {
      absl::StrAppend(&lent, "[", l.resource, " ", absl::StrJoin(l.actions, ","), " ",
                      l.constraints_json, "]");
    }
    lines.push_back(absl::StrCat("delegation ", d.id, " ", d.from_agent_id, " ", d.to_agent_id, " ",
                                 lent, " ", d.max_depth, " ", static_cast<int>(d.status), " ",
                                 absl::FormatTime(d.expires_at), " ",
                                 absl::FormatTime(d.created_at)));
  }
  return absl::StrJoin(lines, "\n");
}

PolicyContents DatasetPolicy(int64_t agents) {
  PolicyContents policy;
  for (int64_t agent = 0; agent < agents; ++agent) {
    policy.agents.push_back(StoredAgent{AgentRow(agent), Sha256(AgentToken(agent))});
    for (Permission& permission : PermissionsOf(agent)) {
      policy.permissions.push_back(std::move(permission));
    }
  }
  for (int64_t chain = 0; chain < ChainCount(agents); ++chain) {
    for (Delegation& link : ChainLinks(chain)) policy.delegations.push_back(std::move(link));
  }
  return policy;
}

std::unique_ptr<SqliteStore> OpenStore(const std::string& path) {
  SqliteOptions options;
  options.create_if_missing = false;
  options.clock = [] { return CreatedAt(); };
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? *std::move(store) : nullptr;
}

TEST(DatasetDb, HoldsWhatTheStoresImportWrites) {
  absl::StatusOr<std::string> generated =
      EnsureDatasetDb({kAgents, TestDir("generated"), /*drop_index=*/""});
  ASSERT_TRUE(generated.ok()) << generated.status();

  SqliteOptions options;
  options.clock = [] { return CreatedAt(); };
  absl::StatusOr<std::unique_ptr<SqliteStore>> imported =
      SqliteStore::Open(TestDir("imported.db"), options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_TRUE((*imported)->admin().ImportPolicy(DatasetPolicy(kAgents)).ok());

  std::unique_ptr<SqliteStore> store = OpenStore(*generated);
  ASSERT_NE(store, nullptr);
  absl::StatusOr<PolicyContents> from_generator = store->admin().ExportPolicy();
  absl::StatusOr<PolicyContents> from_import = (*imported)->admin().ExportPolicy();
  ASSERT_TRUE(from_generator.ok()) << from_generator.status();
  ASSERT_TRUE(from_import.ok()) << from_import.status();
  EXPECT_EQ(from_generator->permissions.size(), kAgents * kPermissionsPerAgent);
  EXPECT_EQ(Render(*from_generator), Render(*from_import));
}

TEST(DatasetDb, IsGeneratedOnceAndThenReused) {
  const DatasetDbOptions options{kAgents, TestDir("reuse"), ""};
  absl::StatusOr<std::string> first = EnsureDatasetDb(options);
  ASSERT_TRUE(first.ok()) << first.status();
  struct stat before;
  ASSERT_EQ(stat(first->c_str(), &before), 0);
  absl::StatusOr<std::string> second = EnsureDatasetDb(options);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  struct stat after;
  ASSERT_EQ(stat(second->c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mtime, after.st_mtime);

  absl::StatusOr<std::string> bigger = EnsureDatasetDb({kAgents + 4, TestDir("reuse"), ""});
  ASSERT_TRUE(bigger.ok());
  EXPECT_NE(*bigger, *first);
}

// Through the real store: the predictions the benchmarks check hold on SQLite too, with the
// index variants the gate's controls use (slower, never different).
TEST(DatasetDb, DecidesAsPredictedWithAndWithoutEachIndex) {
  for (const char* dropped : {"", "decision_records", "token_hash", "permissions_by_agent"}) {
    absl::StatusOr<std::string> path = EnsureDatasetDb({kAgents, TestDir("variants"), dropped});
    ASSERT_TRUE(path.ok()) << dropped << ": " << path.status();
    std::unique_ptr<SqliteStore> store = OpenStore(*path);
    ASSERT_NE(store, nullptr);
    Authorizer authorizer(*store, [] { return CreatedAt() + absl::Hours(1); });
    for (ProbeKind kind : {ProbeKind::kDirect, ProbeKind::kDirectPath, ProbeKind::kDeniedByPolicy,
                           ProbeKind::kThreeHops, ProbeKind::kRevokedChain, ProbeKind::kNoMatch}) {
      for (uint64_t pick = 1; pick <= 20; ++pick) {
        const Probe probe = MakeProbe(kind, kAgents, pick * 0x9e3779b97f4a7c15ULL);
        absl::StatusOr<Decision> decision = authorizer.Authorize(probe.request);
        ASSERT_TRUE(decision.ok()) << decision.status();
        EXPECT_EQ(DescribeDifference(probe.expected, OutcomeOf(*decision)), "")
            << dropped << " " << probe.request.resource;
      }
    }
    absl::StatusOr<TokenValidation> validation = authorizer.ValidateToken(AgentToken(99));
    ASSERT_TRUE(validation.ok()) << validation.status();
    EXPECT_TRUE(validation->valid) << dropped;
  }
}

TEST(DatasetDb, VariantsReallyLackTheirIndex) {
  struct Case {
    const char* dropped;
    const char* lookup;  // a store statement that must stop using an index
  };
  const Case cases[] = {
      {"decision_records", GetStatementSql(Statement::kFindDecisionRecord).sql},
      {"token_hash", GetStatementSql(Statement::kFindDecisionRecordByTokenHash).sql},
      {"permissions_by_agent", GetStatementSql(Statement::kPermissionsOf).sql},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> healthy = EnsureDatasetDb({kAgents, TestDir("plans"), ""});
    absl::StatusOr<std::string> broken = EnsureDatasetDb({kAgents, TestDir("plans"), c.dropped});
    ASSERT_TRUE(healthy.ok() && broken.ok());
    auto plan = [&](const std::string& path) {
      SQLite::Database db(path, SQLite::OPEN_READONLY);
      SQLite::Statement explain(db, absl::StrCat("EXPLAIN QUERY PLAN ", c.lookup));
      std::string detail;
      while (explain.executeStep()) absl::StrAppend(&detail, explain.getColumn(3).getString());
      return detail;
    };
    EXPECT_EQ(plan(*healthy).find("SCAN"), std::string::npos) << plan(*healthy);
    EXPECT_NE(plan(*broken).find("SCAN"), std::string::npos) << c.dropped << ": " << plan(*broken);
  }
}

TEST(DatasetDb, AnUnknownIndexIsAnError) {
  EXPECT_FALSE(EnsureDatasetDb({kAgents, TestDir("unknown"), "no_such_index"}).ok());
}

}  // namespace
}  // namespace verdict::bench
