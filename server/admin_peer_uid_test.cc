// Peer-uid authentication (--admin_peer_uids) on the admin Unix socket, with the client connected
// as another local user: a child process drops to uid 65534 (nobody) and only then connects, as a
// local operator's `verdict` would; the kernel records that user as the connection's peer
// (SO_PEERCRED), whoever then writes on it. The child hands the connected socket back and exits,
// and the test makes its calls over it (gRPC is not safe to use in a child forked from a process
// that runs gRPC threads). The server side is verdictd's: a UnixListener whose connections the
// admin gRPC server adopts.
//
// Needs root (CI runs the tests as root) to connect as another user; skips otherwise.
#include <grp.h>
#include <grpcpp/create_channel_posix.h>
#include <grpcpp/grpcpp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "crypto/secret_hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/admin_authentication.h"
#include "server/admin_service.h"
#include "server/admin_sessions.h"
#include "server/admin_test_support.h"
#include "server/grpc_server.h"
#include "server/unix_socket.h"
#include "store/admin_credentials.h"
#include "store/admin_sessions.h"
#include "store/decision_log.h"
#include "store/open_store.h"
#include "store/sqlite_store.h"
#include "store/test_support.h"
#include "verdict/v1/admin.grpc.pb.h"

namespace verdict {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNoGroup = 65534;

// A socket connected to `path` by a child process running as `uid` (group kNoGroup, no
// supplementary groups), received from it; or why there is none.
absl::StatusOr<int> ConnectAs(uid_t uid, const std::string& path) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return absl::InternalError("socketpair");
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  const pid_t child = fork();
  if (child == 0) {
    // Only async-signal-safe calls: this process has other threads.
    if (setgroups(0, nullptr) != 0 || setgid(kNoGroup) != 0 || setuid(uid) != 0) _exit(1);
    if (getuid() != uid || geteuid() != uid) _exit(2);
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      _exit(3);
    }
    char one = 0;
    iovec data{&one, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* rights = CMSG_FIRSTHDR(&message);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(rights), &fd, sizeof(int));
    _exit(sendmsg(pair[1], &message, 0) == 1 ? 0 : 4);
  }
  close(pair[1]);
  int fd = -1;
  if (child > 0) {
    char one = 0;
    iovec data{&one, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    if (recvmsg(pair[0], &message, MSG_CMSG_CLOEXEC) == 1) {
      cmsghdr* rights = CMSG_FIRSTHDR(&message);
      if (rights != nullptr && rights->cmsg_type == SCM_RIGHTS) {
        std::memcpy(&fd, CMSG_DATA(rights), sizeof(int));
      }
    }
  }
  close(pair[0]);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    if (fd >= 0) close(fd);
    return absl::InternalError(
        absl::StrCat("the child could not connect as uid ", uid, " (exit ", WEXITSTATUS(status),
                     ": 1 setuid, 2 uid not changed, 3 connect, 4 sendmsg)"));
  }
  return fd;
}

class AdminPeerUidTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "runs its client as uid 65534, which takes root (CI runs tests as root)";
    }
    // Under /tmp: short enough for a socket path, and open to the client's user (the test's
    // own directory may not be).
    char directory[] = "/tmp/verdict-peer-uid.XXXXXX";
    ASSERT_NE(mkdtemp(directory), nullptr);
    directory_ = directory;
    ASSERT_EQ(chmod(directory_.c_str(), 0755), 0);
    address_ = absl::StrCat("unix:", directory_, "/admin.sock");

    path_ = FreshDatabasePath();
    store_ = OpenTestStore(path_, clock_);
    ASSERT_NE(store_, nullptr);
    credentials_ = std::make_unique<AdminCredentials>(path_);
    ASSERT_TRUE(SetTestAdminSecret(*credentials_, clock_.Now()).ok());
    // The principal a mapped uid names must exist, as any principal must: here an operator.
    ASSERT_TRUE(AddTestPrincipal(*credentials_, "alice", {AdminRole::kOperator}, kTestAdminSecret,
                                 clock_.Now())
                    .ok());
    auth_ = std::make_unique<AdminAuthenticator>(*credentials_, clock_.AsFunction(),
                                                 AdminAuthOptions{.hash_params = kTestHashParams});
    session_store_ = std::make_unique<AdminSessions>(path_);
    sessions_ = std::make_unique<AdminSessionManager>(*session_store_, clock_.AsFunction());
    decision_log_ = std::make_unique<DecisionLog>(path_);
  }

  // Serves AdminService on the socket with `peer_uids` mapped, as verdictd does.
  void Serve(PeerUidPrincipals peer_uids) {
    authentication_ = std::make_unique<AdminAuthentication>(sessions_.get(), std::move(peer_uids));
    absl::StatusOr<std::unique_ptr<AdminAuditLog>> admin_audit = OpenAdminAuditLog(path_);
    ASSERT_TRUE(admin_audit.ok()) << admin_audit.status();
    admin_audit_ = *std::move(admin_audit);
    service_ = std::make_unique<GrpcAdminService>(store_->admin(), *decision_log_, *admin_audit_,
                                                  *auth_, clock_.AsFunction());
    service_->set_authentication(authentication_.get());
    absl::StatusOr<std::unique_ptr<GrpcServer>> server =
        GrpcServer::Start("", {{v1::AdminService::service_full_name(), service_.get()}});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    GrpcServer* grpc_server = server_.get();
    // Open to every local user, so that only the mapping decides who gets in.
    absl::StatusOr<std::unique_ptr<UnixListener>> listener = UnixListener::Start(
        address_, {.mode = 0666}, [grpc_server](int fd) { grpc_server->AdoptConnection(fd); });
    ASSERT_TRUE(listener.ok()) << listener.status();
    listener_ = *std::move(listener);
  }

  // A stub whose one connection a process running as `uid` made.
  std::unique_ptr<v1::AdminService::Stub> StubConnectedAs(uid_t uid) {
    absl::StatusOr<int> fd = ConnectAs(uid, absl::StrCat(directory_, "/admin.sock"));
    EXPECT_TRUE(fd.ok()) << fd.status();
    if (!fd.ok()) return nullptr;
    return v1::AdminService::NewStub(grpc::CreateInsecureChannelFromFd("peer-uid-test", *fd));
  }

  // A fresh context for one call, carrying "authorization: Bearer <credential>" unless it is "".
  grpc::ClientContext* With(absl::string_view credential) {
    contexts_.push_back(AdminCallContext(credential));
    return contexts_.back().get();
  }

  void TearDown() override {
    if (listener_ != nullptr) listener_->Stop();
    if (server_ != nullptr) server_->Shutdown(absl::Seconds(5));
    if (!directory_.empty()) {
      std::remove(absl::StrCat(directory_, "/admin.sock.lock").c_str());
      rmdir(directory_.c_str());
    }
  }

  std::string directory_;
  std::string address_;
  ManualClock clock_;
  std::string path_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<AdminCredentials> credentials_;
  std::unique_ptr<AdminAuthenticator> auth_;
  std::unique_ptr<AdminSessions> session_store_;
  std::unique_ptr<AdminSessionManager> sessions_;
  std::unique_ptr<DecisionLog> decision_log_;
  std::unique_ptr<AdminAuditLog> admin_audit_;
  std::unique_ptr<AdminAuthentication> authentication_;
  std::unique_ptr<GrpcAdminService> service_;
  std::unique_ptr<GrpcServer> server_;
  std::unique_ptr<UnixListener> listener_;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts_;
};

TEST_F(AdminPeerUidTest, AMappedLocalUserIsItsPrincipalWithoutASecret) {
  Serve({{kNobody, "alice"}});
  std::unique_ptr<v1::AdminService::Stub> nobody = StubConnectedAs(kNobody);
  ASSERT_NE(nobody, nullptr);

  v1::ListAgentsResponse agents;
  const grpc::Status listed = nobody->ListAgents(With(""), {}, &agents);
  EXPECT_TRUE(listed.ok()) << listed.error_message();
  // Its principal, and how it proved it: a mapped uid may create a session.
  v1::CreateSessionResponse session;
  const grpc::Status created = nobody->CreateSession(With(""), {}, &session);
  EXPECT_TRUE(created.ok()) << created.error_message();
  EXPECT_EQ(session.principal(), "alice");
}

TEST_F(AdminPeerUidTest, ALocalUserMappedToADisabledPrincipalIsRefused) {
  Serve({{kNobody, "alice"}});
  std::unique_ptr<v1::AdminService::Stub> nobody = StubConnectedAs(kNobody);
  ASSERT_NE(nobody, nullptr);
  v1::ListAgentsResponse agents;
  ASSERT_TRUE(nobody->ListAgents(With(""), {}, &agents).ok());

  ASSERT_TRUE(credentials_
                  ->ChangePrincipal(
                      "alice",
                      [](StoredAdminPrincipal& stored) {
                        stored.principal.enabled = false;
                        return absl::OkStatus();
                      },
                      clock_.Now())
                  .ok());
  const grpc::Status refused = nobody->ListAgents(With(""), {}, &agents);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), testing::HasSubstr("\"alice\" is disabled"));
  v1::CreateSessionResponse session;
  EXPECT_EQ(nobody->CreateSession(With(""), {}, &session).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(session.token().empty()) << "no session for a disabled principal";
}

TEST_F(AdminPeerUidTest, AnUnmappedLocalUserNeedsTheSecret) {
  Serve({{1000, "alice"}});
  std::unique_ptr<v1::AdminService::Stub> nobody = StubConnectedAs(kNobody);
  ASSERT_NE(nobody, nullptr);

  v1::ListAgentsResponse agents;
  EXPECT_EQ(nobody->ListAgents(With(""), {}, &agents).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(nobody->ListAgents(With(kTestAdminSecret), {}, &agents).ok());
  v1::CreateSessionResponse session;
  EXPECT_TRUE(nobody->CreateSession(With(kTestAdminSecret), {}, &session).ok());
  EXPECT_EQ(session.principal(), "admin") << "the secret's principal, not a mapped one";
}

}  // namespace
}  // namespace verdict
