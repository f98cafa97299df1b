// Reads on synchronous standbys stay fresh (issue 22; store/POSTGRES.md "Reads on synchronous
// standbys"). A primary and two streaming standbys on loopback (scripts/pg-standby-cluster.sh):
// remote_apply, both standbys in the quorum. Two verdictd processes, each reading from its own
// standby (--db_read) and writing to the primary. Round after round, an agent is suspended
// through one sidecar's AdminService and the next call through the other is denied; it is
// reactivated and the next call is allowed. Then the negative control: with synchronous_commit
// = on, a commit may return before a standby applied it, so both sidecars refuse their
// standbys, say why, and answer fresh from the primary.
//
// Skipped without VERDICT_TEST_POSTGRES_URL (the primary) and VERDICT_TEST_POSTGRES_STANDBY_URLS
// (the standbys, space-separated): scripts/test.d/postgres-standby.sh sets both.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"
#include "store/postgres/postgres_test_support.h"
#include "tests/decision_traffic.h"
#include "tests/verdictd_process.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

constexpr char kAdminSecret[] = "standby-reads-admin-secret-0123";
constexpr char kAgent[] = "agt_standby_reader";
constexpr char kPolicy[] = R"json({
  "version": 1,
  "agents": [
    {"id": "agt_standby_reader", "owner": "tests", "name": "suspended and back, again and again",
     "kind": "autonomous", "status": "active"}
  ],
  "permissions": [
    {"id": "perm_standby_reader", "agent_id": "agt_standby_reader", "resource": "docs:*",
     "actions": ["read"], "effect": "allow"}
  ]
})json";

constexpr int kRounds = 1000;
constexpr int kControlRounds = 100;
constexpr absl::Duration kCheckWait = absl::Seconds(30);
constexpr char kReadsHere[] = ": reads here";
constexpr char kRefusedNotRemoteApply[] =
    "refused: the primary's synchronous_commit is 'on', not 'remote_apply'";
constexpr char kRefusedOnlyTheRolesSetting[] =
    "refused: the primary's synchronous_commit is 'remote_apply' only from source 'user'";

std::vector<std::string> StandbyUrls() {
  const char* urls = std::getenv("VERDICT_TEST_POSTGRES_STANDBY_URLS");
  if (urls == nullptr) return {};
  return absl::StrSplit(urls, ' ', absl::SkipEmpty());
}

std::unique_ptr<grpc::ClientContext> AdminContext() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("authorization", absl::StrCat("Bearer ", kAdminSecret));
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

// GET /metrics from "127.0.0.1:PORT"; "" when it cannot be read.
std::string FetchMetrics(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port)) return "";
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(port);
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&server), sizeof server) == 0) {
    const std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buffer[8192];
      for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) response.append(buffer, n);
    }
  }
  close(fd);
  return response;
}

// A counter's value in verdictd's metrics; -1 when absent.
int64_t Counter(const std::string& metrics, absl::string_view name) {
  for (absl::string_view line : absl::StrSplit(metrics, '\n')) {
    if (!absl::ConsumePrefix(&line, name) || !absl::ConsumePrefix(&line, " ")) continue;
    int64_t value = 0;
    if (absl::SimpleAtoi(line, &value)) return value;
  }
  return -1;
}

struct Sidecar {
  std::unique_ptr<VerdictdProcess> process;
  std::unique_ptr<v1::DecisionService::Stub> decisions;
  std::unique_ptr<v1::AdminService::Stub> admin;
  std::string metrics_address;

  int64_t Reads(absl::string_view where) const {
    return Counter(FetchMetrics(metrics_address),
                   absl::StrCat("verdict_store_reads_on_", where, "_total"));
  }
};

// The address in verdictd's "verdictd metrics on ADDRESS" line.
std::string MetricsAddress(VerdictdProcess& process) {
  const std::string logged = process.Logged();
  const std::string kPrefix = "verdictd metrics on ";
  const size_t at = logged.find(kPrefix);
  if (at == std::string::npos) return "";
  const std::string rest = logged.substr(at + kPrefix.size());
  return rest.substr(0, rest.find_first_of("/ \n\""));
}

grpc::Status Suspend(v1::AdminService::Stub& admin) {
  v1::SuspendAgentRequest request;
  request.set_agent_id(kAgent);
  v1::SuspendAgentResponse response;
  return admin.SuspendAgent(AdminContext().get(), request, &response);
}

grpc::Status Reactivate(v1::AdminService::Stub& admin) {
  v1::ReactivateAgentRequest request;
  request.set_agent_id(kAgent);
  v1::ReactivateAgentResponse response;
  return admin.ReactivateAgent(AdminContext().get(), request, &response);
}

struct Staleness {
  int stale_allows = 0;  // allowed after the suspension returned
  int stale_denies = 0;  // denied after the reactivation returned
};

// `rounds` rounds, alternating which sidecar writes and which decides: the write through one,
// the next call through the other.
Staleness SuspendAndReactivate(std::vector<Sidecar>& sidecars, int rounds) {
  Staleness seen;
  for (int round = 0; round < rounds; ++round) {
    Sidecar& writer = sidecars[round % 2];
    Sidecar& reader = sidecars[1 - round % 2];
    const grpc::Status suspended = Suspend(*writer.admin);
    EXPECT_TRUE(suspended.ok()) << suspended.error_message();
    const v1::AuthorizeResponse after_suspend = DecideReadDocs(*reader.decisions, kAgent);
    if (after_suspend.verdict() != v1::VERDICT_DENY ||
        after_suspend.reason() != v1::REASON_CODE_AGENT_SUSPENDED) {
      ++seen.stale_allows;
    }
    const grpc::Status reactivated = Reactivate(*writer.admin);
    EXPECT_TRUE(reactivated.ok()) << reactivated.error_message();
    if (DecideReadDocs(*reader.decisions, kAgent).verdict() != v1::VERDICT_ALLOW) {
      ++seen.stale_denies;
    }
  }
  return seen;
}

void RunOnPrimary(const std::string& script) {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> connection =
      PostgresConnection::Open(**pq, TestPostgresUrl(), {});
  ASSERT_TRUE(connection.ok()) << connection.status();
  absl::Status ran = (*connection)->ExecuteScript(script.c_str());
  ASSERT_TRUE(ran.ok()) << script << ": " << ran;
}

// The primary's synchronous_commit for every session, as an operator sets it.
void SetPrimarySynchronousCommit(absl::string_view level) {
  absl::StatusOr<const LibPq*> pq = LoadLibPq();
  ASSERT_TRUE(pq.ok()) << pq.status();
  absl::StatusOr<std::unique_ptr<PostgresConnection>> connection =
      PostgresConnection::Open(**pq, TestPostgresUrl(), {});
  ASSERT_TRUE(connection.ok()) << connection.status();
  const std::string set = absl::StrCat("ALTER SYSTEM SET synchronous_commit = '", level, "'");
  ASSERT_TRUE((*connection)->ExecuteScript(set.c_str()).ok());
  ASSERT_TRUE((*connection)->ExecuteScript("SELECT pg_reload_conf()").ok());
}

TEST(PostgresStandbyReadsTest, RemoteApplyStandbysServeReadsThatAreNeverStale) {
  const std::vector<std::string> standbys = StandbyUrls();
  if (TestPostgresUrl().empty() || standbys.size() < 2) {
    GTEST_SKIP() << "VERDICT_TEST_POSTGRES_URL and VERDICT_TEST_POSTGRES_STANDBY_URLS (two "
                    "standbys) are not set: scripts/test.d/postgres-standby.sh starts a primary "
                    "with two synchronous standbys and runs this test";
  }
  absl::StatusOr<PostgresTestSchema> schema = PostgresTestSchema::Create();
  ASSERT_TRUE(schema.ok()) << schema.status();
  const std::string directory = TestDirectory("standby_reads");
  const std::string seed = directory + "/policy.json";
  std::ofstream(seed) << kPolicy;
  const std::string secret_file = directory + "/admin-secret";
  std::ofstream(secret_file) << kAdminSecret << "\n";
  // Removed with the sockets and their lock files once the sidecars (declared after) are gone.
  const ShortTempDirectory sockets("standby");
  const std::string& socket_directory = sockets.path();
  ASSERT_FALSE(socket_directory.empty());

  // Sidecar i reads from standby i and writes to the primary; each serves AdminService.
  std::vector<Sidecar> sidecars(2);
  for (int i = 0; i < 2; ++i) {
    const std::string admin_address = absl::StrCat("unix:", socket_directory, "/admin", i, ".sock");
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> process = VerdictdProcess::Start(
        {"--db=" + schema->conninfo(), "--db_read=" + WithSearchPath(standbys[i], schema->name()),
         "--seed=" + seed, "--admin_listen=" + admin_address, "--admin_secret_file=" + secret_file,
         "--test_only_weak_admin_hash", "--metrics_listen=127.0.0.1:0"});
    ASSERT_TRUE(process.ok()) << process.status();
    Sidecar& sidecar = sidecars[i];
    sidecar.process = *std::move(process);
    sidecar.decisions = v1::DecisionService::NewStub(
        grpc::CreateChannel(sidecar.process->address(), grpc::InsecureChannelCredentials()));
    sidecar.admin = v1::AdminService::NewStub(
        grpc::CreateChannel(admin_address, grpc::InsecureChannelCredentials()));
    sidecar.metrics_address = MetricsAddress(*sidecar.process);
    ASSERT_FALSE(sidecar.metrics_address.empty()) << sidecar.process->Logged();
    ASSERT_TRUE(sidecar.process->AwaitLogged(kReadsHere, 1, kCheckWait))
        << "the standby should serve reads: " << sidecar.process->Logged();
  }

  // Every call reads on its sidecar's standby, and none is stale.
  const int64_t standby_reads_before[] = {sidecars[0].Reads("standby"),
                                          sidecars[1].Reads("standby")};
  const Staleness remote_apply = SuspendAndReactivate(sidecars, kRounds);
  EXPECT_EQ(remote_apply.stale_allows, 0);
  EXPECT_EQ(remote_apply.stale_denies, 0);
  for (int i = 0; i < 2; ++i) {
    EXPECT_GE(sidecars[i].Reads("standby") - standby_reads_before[i], kRounds)
        << "sidecar " << i << " decided on its standby";
  }

  // The negative control: commits that wait only for the standbys' flush, not their replay.
  // Put back as scripts/pg-standby-cluster.sh set it however the test ends.
  struct PutBack {
    ~PutBack() { SetPrimarySynchronousCommit("remote_apply"); }
  } put_back;
  SetPrimarySynchronousCommit("on");
  for (Sidecar& sidecar : sidecars) {
    ASSERT_TRUE(sidecar.process->AwaitLogged(kRefusedNotRemoteApply, 1, kCheckWait))
        << sidecar.process->Logged();
  }
  const int64_t standby_reads[] = {sidecars[0].Reads("standby"), sidecars[1].Reads("standby")};
  const int64_t primary_reads[] = {sidecars[0].Reads("primary"), sidecars[1].Reads("primary")};
  const Staleness on = SuspendAndReactivate(sidecars, kControlRounds);
  EXPECT_EQ(on.stale_allows, 0);
  EXPECT_EQ(on.stale_denies, 0);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(sidecars[i].Reads("standby"), standby_reads[i]) << "sidecar " << i;
    EXPECT_GE(sidecars[i].Reads("primary") - primary_reads[i], kControlRounds) << "sidecar " << i;
  }

  // remote_apply for verdict's own role only (ALTER ROLE ... SET) says nothing of the other
  // writers, which commit with the server's `on`: a sidecar started now is refused too.
  {
    RunOnPrimary("ALTER ROLE CURRENT_USER SET synchronous_commit = 'remote_apply'");
    struct ResetsRole {
      ~ResetsRole() { RunOnPrimary("ALTER ROLE CURRENT_USER RESET synchronous_commit"); }
    } resets_role;
    absl::StatusOr<std::unique_ptr<VerdictdProcess>> own_setting = VerdictdProcess::Start(
        {"--db=" + schema->conninfo(), "--db_read=" + WithSearchPath(standbys[0], schema->name()),
         "--seed=" + seed});
    ASSERT_TRUE(own_setting.ok()) << own_setting.status();
    EXPECT_TRUE((*own_setting)->AwaitLogged(kRefusedOnlyTheRolesSetting, 1, kCheckWait))
        << (*own_setting)->Logged();
    EXPECT_FALSE(absl::StrContains((*own_setting)->Logged(), kReadsHere))
        << (*own_setting)->Logged();
  }

  // Put back: the standbys serve reads again.
  SetPrimarySynchronousCommit("remote_apply");
  for (Sidecar& sidecar : sidecars) {
    EXPECT_TRUE(sidecar.process->AwaitLogged(kReadsHere, 2, kCheckWait))
        << sidecar.process->Logged();
  }
}

}  // namespace
}  // namespace verdict
