#include "server/admin_plane.h"

#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_store.h"

namespace verdict {
namespace {

using ::testing::HasSubstr;

// Restores the admin flags after each test.
class AdminPlaneOptionsTest : public testing::Test {
 protected:
  void TearDown() override {
    absl::SetFlag(&FLAGS_admin_listen, "");
    absl::SetFlag(&FLAGS_admin_socket_group, "");
    absl::SetFlag(&FLAGS_test_only_weak_admin_hash, false);
    absl::SetFlag(&FLAGS_decision_log_durability, "async");
  }
};

TEST_F(AdminPlaneOptionsTest, TheSocketGroupMustNameAGroupAndAUnixListener) {
  absl::SetFlag(&FLAGS_admin_socket_group, "no-such-group-verdict");
  absl::StatusOr<AdminPlaneOptions> unknown = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("--admin_socket_group"));

  absl::SetFlag(&FLAGS_admin_socket_group, getgrgid(getegid())->gr_name);
  absl::SetFlag(&FLAGS_admin_listen, "127.0.0.1:0");
  absl::StatusOr<AdminPlaneOptions> tcp = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  EXPECT_EQ(tcp.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(tcp.status().message(), HasSubstr("--admin_socket_group"));
}

TEST_F(AdminPlaneOptionsTest, ByDefaultAdminListensOnASocketNextToTheDatabase) {
  absl::StatusOr<AdminPlaneOptions> options =
      AdminPlaneOptionsFromFlags("/var/lib/verdict/verdict.db", "127.0.0.1:50051");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "unix:/var/lib/verdict/verdict.db.admin.sock");
  EXPECT_FALSE(options->listen_required);
  EXPECT_EQ(options->hash_params.memory_kib, SecretHashParams().memory_kib);
  EXPECT_EQ(options->hash_params.time_cost, SecretHashParams().time_cost);
}

TEST_F(AdminPlaneOptionsTest, TheDefaultSocketIsNextToTheFileASqliteUrlNames) {
  absl::StatusOr<AdminPlaneOptions> options =
      AdminPlaneOptionsFromFlags("sqlite:///var/lib/verdict/verdict.db", "127.0.0.1:50051");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "unix:/var/lib/verdict/verdict.db.admin.sock");
}

// Named as the operator named the database: a relative path stays relative (the CLI's default
// address is "unix:verdict.db.admin.sock"), and short, where the absolute path of a deep
// working directory could pass the 107 bytes a socket's path may hold (review h37).
TEST_F(AdminPlaneOptionsTest, TheDefaultSocketOfARelativeDatabaseIsRelative) {
  for (const char* db : {"verdict.db", "sqlite://verdict.db"}) {
    absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags(db, "127.0.0.1:50051");
    ASSERT_TRUE(options.ok()) << options.status();
    EXPECT_EQ(options->listen, "unix:verdict.db.admin.sock") << db;
  }
}

// Checked as --listen is, so a mistake is named before gRPC's own errors would be (h39).
TEST_F(AdminPlaneOptionsTest, AMistypedAdminAddressIsNamedAndOffIsOffInAnyCase) {
  absl::SetFlag(&FLAGS_admin_listen, "OFF");
  absl::StatusOr<AdminPlaneOptions> off = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051");
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->listen, "");
  for (const char* wrong : {"/tmp/admin.sock", "50062", "localhost:99999", "unix:"}) {
    absl::SetFlag(&FLAGS_admin_listen, wrong);
    absl::StatusOr<AdminPlaneOptions> options =
        AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051");
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument) << wrong;
    EXPECT_THAT(std::string(options.status().message()), HasSubstr("--admin_listen")) << wrong;
  }
  absl::SetFlag(&FLAGS_admin_listen, "/tmp/admin.sock");
  EXPECT_THAT(std::string(AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051").status().message()),
              HasSubstr("unix:/tmp/admin.sock"));
}

TEST_F(AdminPlaneOptionsTest, AnAddressTheOperatorChoseIsRequired) {
  absl::SetFlag(&FLAGS_admin_listen, "127.0.0.1:50052");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "127.0.0.1:50052");
  EXPECT_TRUE(options->listen_required);
}

TEST_F(AdminPlaneOptionsTest, OffMeansNoAdminListener) {
  absl::SetFlag(&FLAGS_admin_listen, "off");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "");
}

TEST_F(AdminPlaneOptionsTest, TheDecisionPortNeverServesTheAdminService) {
  absl::SetFlag(&FLAGS_admin_listen, "127.0.0.1:50051");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:50051");
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), HasSubstr("--admin_listen"));
}

TEST_F(AdminPlaneOptionsTest, BothListenersMayAskForAnyFreePort) {
  absl::SetFlag(&FLAGS_admin_listen, "127.0.0.1:0");
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:0");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->listen, "127.0.0.1:0");
}

TEST_F(AdminPlaneOptionsTest, DecisionLogDurabilityIsAsyncUnlessSyncIsAsked) {
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->decision_log_durability, DecisionLogDurability::kAsync);

  absl::SetFlag(&FLAGS_decision_log_durability, "sync");
  options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->decision_log_durability, DecisionLogDurability::kSync);

  absl::SetFlag(&FLAGS_decision_log_durability, "fsync");
  options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(options.status().message()), HasSubstr("--decision_log_durability"));
}

TEST_F(AdminPlaneOptionsTest, WeakHashingIsForTestsThatAskForIt) {
  absl::SetFlag(&FLAGS_test_only_weak_admin_hash, true);
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags("v.db", "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_LT(options->hash_params.memory_kib, SecretHashParams().memory_kib);
}

// A real SQLite store in a fresh directory under /tmp (unix socket paths must stay short).
class AdminPlaneStartTest : public testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/verdict-admin-plane-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }

  std::unique_ptr<SqliteStore> OpenStore(const std::string& db_path) {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(db_path);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  std::string dir_;
};

// A group to give the socket to: the process's own (Bazel's sandbox maps no other).
gid_t SocketGroup() { return getegid(); }

// Connecting to a unix socket takes write permission on it: with umask 000 gRPC would bind it
// 0777, open to every local user. It is 0600, or 0660 for the group the operator names.
TEST_F(AdminPlaneStartTest, TheAdminSocketIsForItsOwnerOrTheNamedGroupWhateverTheUmask) {
  const std::string db_path = dir_ + "/v.db";
  std::unique_ptr<SqliteStore> store = OpenStore(db_path);
  ASSERT_NE(store, nullptr);
  const mode_t umask_before = umask(0);
  struct Case {
    std::string group;
    mode_t mode;
    gid_t gid;
  };
  for (const Case& c :
       {Case{"", 0600, getegid()}, Case{getgrgid(SocketGroup())->gr_name, 0660, SocketGroup()}}) {
    absl::SetFlag(&FLAGS_admin_socket_group, c.group);
    absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags(db_path, "127.0.0.1:1");
    absl::SetFlag(&FLAGS_admin_socket_group, "");
    ASSERT_TRUE(options.ok()) << options.status();
    absl::StatusOr<std::unique_ptr<AdminPlane>> plane =
        AdminPlane::Start(*options, db_path, store->admin(), [] { return absl::Now(); });
    ASSERT_TRUE(plane.ok()) << plane.status();
    ASSERT_EQ((*plane)->address(), "unix:" + db_path + ".admin.sock");
    struct stat socket_file;
    ASSERT_EQ(stat((db_path + ".admin.sock").c_str(), &socket_file), 0);
    EXPECT_TRUE(S_ISSOCK(socket_file.st_mode));
    EXPECT_EQ(socket_file.st_mode & 0777, c.mode)
        << "group \"" << c.group << "\": mode " << std::oct << (socket_file.st_mode & 0777);
    EXPECT_EQ(socket_file.st_gid, c.gid);
    (*plane)->Shutdown(absl::ZeroDuration());
  }
  // The process's umask is the one it had: only the bind saw a narrower one.
  EXPECT_EQ(umask(umask_before), 0);
}

TEST_F(AdminPlaneStartTest, ASecondPlaneOnOneDatabaseRunsWithoutTheDefaultSocket) {
  const std::string db_path = dir_ + "/v.db";
  std::unique_ptr<SqliteStore> store = OpenStore(db_path);
  ASSERT_NE(store, nullptr);
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags(db_path, "127.0.0.1:1");
  ASSERT_TRUE(options.ok()) << options.status();
  absl::StatusOr<std::unique_ptr<AdminPlane>> first =
      AdminPlane::Start(*options, db_path, store->admin(), [] { return absl::Now(); });
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->address(), "unix:" + db_path + ".admin.sock");

  absl::StatusOr<std::unique_ptr<AdminPlane>> second =
      AdminPlane::Start(*options, db_path, store->admin(), [] { return absl::Now(); });
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)->address(), "");
}

TEST_F(AdminPlaneStartTest, AnAddressTheOperatorChoseThatCannotBeServedStopsTheStart) {
  const std::string db_path = dir_ + "/v.db";
  std::unique_ptr<SqliteStore> store = OpenStore(db_path);
  ASSERT_NE(store, nullptr);
  // Longer than a unix socket path may be (107 bytes).
  absl::SetFlag(&FLAGS_admin_listen, "unix:" + dir_ + "/" + std::string(110, 's'));
  absl::StatusOr<AdminPlaneOptions> options = AdminPlaneOptionsFromFlags(db_path, "127.0.0.1:1");
  absl::SetFlag(&FLAGS_admin_listen, "");
  ASSERT_TRUE(options.ok()) << options.status();
  absl::StatusOr<std::unique_ptr<AdminPlane>> plane =
      AdminPlane::Start(*options, db_path, store->admin(), [] { return absl::Now(); });
  EXPECT_FALSE(plane.ok());
}

}  // namespace
}  // namespace verdict
