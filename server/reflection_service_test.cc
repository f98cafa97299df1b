#include "server/reflection_service.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "server/grpc_server.h"
#include "verdict/v1/admin.grpc.pb.h"
#include "verdict/v1/decision.grpc.pb.h"

namespace verdict {
namespace {

using grpc::reflection::v1alpha::ServerReflection;
using grpc::reflection::v1alpha::ServerReflectionRequest;
using grpc::reflection::v1alpha::ServerReflectionResponse;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kDecisionFile[] = "verdict/v1/decision.proto";
constexpr char kTimestampFile[] = "google/protobuf/timestamp.proto";

using Stream = grpc::ClientReaderWriter<ServerReflectionRequest, ServerReflectionResponse>;

ServerReflectionRequest ListServices() {
  ServerReflectionRequest request;
  request.set_list_services("*");
  return request;
}

ServerReflectionRequest FileContainingSymbol(const std::string& symbol) {
  ServerReflectionRequest request;
  request.set_file_containing_symbol(symbol);
  return request;
}

ServerReflectionRequest FileByFilename(const std::string& name) {
  ServerReflectionRequest request;
  request.set_file_by_filename(name);
  return request;
}

// The names of the files a response carries, in order.
std::vector<std::string> FileNames(const ServerReflectionResponse& response) {
  std::vector<std::string> names;
  for (const std::string& bytes : response.file_descriptor_response().file_descriptor_proto()) {
    google::protobuf::FileDescriptorProto file;
    EXPECT_TRUE(file.ParseFromString(bytes));
    names.push_back(file.name());
  }
  return names;
}

std::vector<std::string> ServiceNames(const ServerReflectionResponse& response) {
  std::vector<std::string> names;
  for (const auto& service : response.list_services_response().service()) {
    names.push_back(service.name());
  }
  return names;
}

// A real server on a loopback port with reflection beside a (callback) DecisionService.
class ReflectionServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&decision_);
    builder.RegisterService(&reflection_.v1);
    builder.RegisterService(&reflection_.v1alpha);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    address_ = absl::StrCat("127.0.0.1:", port);
    stub_ = ServerReflection::NewStub(
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
  }

  void TearDown() override { server_->Shutdown(); }

  std::unique_ptr<Stream> OpenStream() {
    context_ = std::make_unique<grpc::ClientContext>();
    context_->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub_->ServerReflectionInfo(context_.get());
  }

  // One request, its answer, on an open stream.
  static ServerReflectionResponse Ask(Stream& stream, const ServerReflectionRequest& request) {
    ServerReflectionResponse response;
    EXPECT_TRUE(stream.Write(request));
    EXPECT_TRUE(stream.Read(&response));
    return response;
  }

  // Half-closes and expects the server to end the stream with OK and nothing more to read.
  static void Close(Stream& stream) {
    ASSERT_TRUE(stream.WritesDone());
    ServerReflectionResponse extra;
    EXPECT_FALSE(stream.Read(&extra));
    const grpc::Status status = stream.Finish();
    EXPECT_TRUE(status.ok()) << status.error_message();
  }

  v1::DecisionService::CallbackService decision_;
  ReflectionServices reflection_{
      {v1::DecisionService::service_full_name(), "grpc.health.v1.Health"}};
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::unique_ptr<ServerReflection::Stub> stub_;
  std::unique_ptr<grpc::ClientContext> context_;
};

TEST_F(ReflectionServiceTest, ListServicesNamesTheGivenServicesAndBothRevisionsOfItself) {
  std::unique_ptr<Stream> stream = OpenStream();
  const ServerReflectionResponse response = Ask(*stream, ListServices());
  EXPECT_THAT(ServiceNames(response),
              ElementsAre("verdict.v1.DecisionService", "grpc.health.v1.Health",
                          "grpc.reflection.v1.ServerReflection",
                          "grpc.reflection.v1alpha.ServerReflection"));
  EXPECT_EQ(response.original_request().list_services(), "*");
  Close(*stream);
}

TEST_F(ReflectionServiceTest, AFileComesWithEachDependencyOncePerStream) {
  std::unique_ptr<Stream> stream = OpenStream();
  const ServerReflectionResponse first =
      Ask(*stream, FileContainingSymbol("verdict.v1.DecisionService"));
  EXPECT_THAT(FileNames(first), ElementsAre(kDecisionFile, kTimestampFile));
  // The file asked for is the answer, so it is always sent; its dependency went already.
  const ServerReflectionResponse second =
      Ask(*stream, FileContainingSymbol("verdict.v1.DecisionService"));
  EXPECT_THAT(FileNames(second), ElementsAre(kDecisionFile));
  const ServerReflectionResponse dependency = Ask(*stream, FileByFilename(kTimestampFile));
  EXPECT_THAT(FileNames(dependency), ElementsAre(kTimestampFile));
  Close(*stream);

  // A new stream starts with nothing sent.
  stream = OpenStream();
  EXPECT_THAT(FileNames(Ask(*stream, FileContainingSymbol("verdict.v1.DecisionService"))),
              ElementsAre(kDecisionFile, kTimestampFile));
  Close(*stream);
}

TEST_F(ReflectionServiceTest, TheFilesSentBuildTheServiceInAFreshPool) {
  std::unique_ptr<Stream> stream = OpenStream();
  const ServerReflectionResponse response =
      Ask(*stream, FileContainingSymbol("verdict.v1.DecisionService"));
  Close(*stream);

  // What a client such as grpcurl does: dependencies first, then the file that needs them.
  google::protobuf::DescriptorPool pool;
  const auto& files = response.file_descriptor_response().file_descriptor_proto();
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    google::protobuf::FileDescriptorProto file;
    ASSERT_TRUE(file.ParseFromString(*it));
    ASSERT_NE(pool.BuildFile(file), nullptr) << file.name();
  }
  const google::protobuf::ServiceDescriptor* service =
      pool.FindServiceByName("verdict.v1.DecisionService");
  ASSERT_NE(service, nullptr);
  EXPECT_NE(service->FindMethodByName("Authorize"), nullptr);
}

TEST_F(ReflectionServiceTest, EveryKindOfSymbolResolvesToItsFile) {
  struct Case {
    const char* symbol;
    const char* file;
  };
  const Case cases[] = {
      {"verdict.v1.DecisionService", kDecisionFile},            // service
      {"verdict.v1.DecisionService.Authorize", kDecisionFile},  // method
      {"verdict.v1.AuthorizeRequest", kDecisionFile},           // message
      {"verdict.v1.AuthorizeRequest.action", kDecisionFile},    // field
      {"verdict.v1.Verdict", kDecisionFile},                    // enum
      {"google.protobuf.Timestamp", kTimestampFile},            // a dependency's message
      {"grpc.reflection.v1alpha.ServerReflection", "grpc/reflection/v1alpha/reflection.proto"},
      {"grpc.reflection.v1.ServerReflection", "grpc/reflection/v1/reflection.proto"},
  };
  for (const Case& c : cases) {
    std::unique_ptr<Stream> stream = OpenStream();
    const ServerReflectionResponse response = Ask(*stream, FileContainingSymbol(c.symbol));
    EXPECT_FALSE(response.has_error_response())
        << c.symbol << ": " << response.error_response().error_message();
    const std::vector<std::string> files = FileNames(response);
    ASSERT_FALSE(files.empty()) << c.symbol;
    EXPECT_EQ(files.front(), c.file) << c.symbol;
    Close(*stream);
  }
}

TEST_F(ReflectionServiceTest, ExtensionNumbersOfAMessageWithoutExtensionsIsAnEmptyList) {
  std::unique_ptr<Stream> stream = OpenStream();
  ServerReflectionRequest request;
  request.set_all_extension_numbers_of_type("verdict.v1.AuthorizeRequest");
  const ServerReflectionResponse response = Ask(*stream, request);
  ASSERT_TRUE(response.has_all_extension_numbers_response());
  EXPECT_EQ(response.all_extension_numbers_response().base_type_name(),
            "verdict.v1.AuthorizeRequest");
  EXPECT_THAT(response.all_extension_numbers_response().extension_number(), IsEmpty());
  Close(*stream);
}

TEST_F(ReflectionServiceTest, WhatIsNotThereIsAnErrorResponseAndTheStreamGoesOn) {
  struct Case {
    const char* name;
    ServerReflectionRequest request;
    grpc::StatusCode code;
  };
  std::vector<Case> cases = {
      {"unknown symbol", FileContainingSymbol("verdict.v1.NoSuchThing"), grpc::NOT_FOUND},
      {"unknown method", FileContainingSymbol("verdict.v1.DecisionService.Nope"), grpc::NOT_FOUND},
      {"unknown file", FileByFilename("verdict/v1/nope.proto"), grpc::NOT_FOUND},
      {"no request at all", ServerReflectionRequest(), grpc::UNIMPLEMENTED},
  };
  Case extension{"unknown extension", {}, grpc::NOT_FOUND};
  extension.request.mutable_file_containing_extension()->set_containing_type(
      "verdict.v1.AuthorizeRequest");
  extension.request.mutable_file_containing_extension()->set_extension_number(1000);
  cases.push_back(extension);
  Case numbers{"extension numbers of an unknown type", {}, grpc::NOT_FOUND};
  numbers.request.set_all_extension_numbers_of_type("verdict.v1.NoSuchMessage");
  cases.push_back(numbers);

  std::unique_ptr<Stream> stream = OpenStream();
  for (const Case& c : cases) {
    const ServerReflectionResponse response = Ask(*stream, c.request);
    ASSERT_TRUE(response.has_error_response()) << c.name;
    EXPECT_EQ(response.error_response().error_code(), c.code) << c.name;
    EXPECT_FALSE(response.error_response().error_message().empty()) << c.name;
  }
  EXPECT_THAT(FileNames(Ask(*stream, FileContainingSymbol("verdict.v1.DecisionService"))),
              ElementsAre(kDecisionFile, kTimestampFile));
  Close(*stream);
}

// The process also holds admin.proto (verdictd serves AdminService on a listener of its own): a
// server that does not serve it does not describe it, by file, by symbol or through an extension
// query, although the descriptors are in the process.
TEST_F(ReflectionServiceTest, FilesOfServicesThisServerDoesNotServeAreNotDescribed) {
  const google::protobuf::FileDescriptor* admin_file = v1::CreateAgentRequest::descriptor()->file();
  ASSERT_EQ(google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
                v1::AdminService::service_full_name()),
            admin_file->FindServiceByName("AdminService"));
  ServerReflectionRequest extension_numbers;
  extension_numbers.set_all_extension_numbers_of_type("verdict.v1.CreateAgentRequest");
  const ServerReflectionRequest requests[] = {
      FileContainingSymbol("verdict.v1.AdminService"),
      FileContainingSymbol("verdict.v1.AdminService.CreateAgent"),
      FileContainingSymbol("verdict.v1.CreateAgentRequest"),
      FileByFilename(admin_file->name()),
      extension_numbers,
  };
  std::unique_ptr<Stream> stream = OpenStream();
  for (const ServerReflectionRequest& request : requests) {
    const ServerReflectionResponse response = Ask(*stream, request);
    ASSERT_TRUE(response.has_error_response()) << request.ShortDebugString();
    EXPECT_EQ(response.error_response().error_code(), grpc::NOT_FOUND)
        << request.ShortDebugString();
    EXPECT_THAT(FileNames(response), IsEmpty());
  }
  // The decision service's own file, and what it imports, are still described.
  EXPECT_THAT(FileNames(Ask(*stream, FileContainingSymbol("verdict.v1.DecisionService"))),
              ElementsAre(kDecisionFile, kTimestampFile));
  Close(*stream);
}

TEST_F(ReflectionServiceTest, RequestsSentAheadAreAnsweredInOrder) {
  // More than the server queues, so it has to pause reading and resume.
  constexpr int kRequests = 40;
  std::unique_ptr<Stream> stream = OpenStream();
  for (int i = 0; i < kRequests; ++i) {
    ServerReflectionRequest request =
        i % 2 == 0 ? ListServices() : FileContainingSymbol("verdict.v1.AuthorizeRequest");
    request.set_host(absl::StrCat("request-", i));
    ASSERT_TRUE(stream->Write(request)) << i;
  }
  ASSERT_TRUE(stream->WritesDone());
  for (int i = 0; i < kRequests; ++i) {
    ServerReflectionResponse response;
    ASSERT_TRUE(stream->Read(&response)) << i;
    EXPECT_EQ(response.valid_host(), absl::StrCat("request-", i));
    EXPECT_EQ(response.original_request().host(), absl::StrCat("request-", i));
    EXPECT_EQ(response.has_list_services_response(), i % 2 == 0) << i;
    EXPECT_EQ(response.has_file_descriptor_response(), i % 2 == 1) << i;
  }
  ServerReflectionResponse extra;
  EXPECT_FALSE(stream->Read(&extra));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(ReflectionServiceTest, AClientThatLeavesMidStreamEndsIt) {
  std::unique_ptr<Stream> stream = OpenStream();
  ASSERT_TRUE(stream->Write(ListServices()));
  context_->TryCancel();
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  // The server is still answering new streams.
  stream = OpenStream();
  EXPECT_THAT(ServiceNames(Ask(*stream, ListServices())), ::testing::SizeIs(4));
  Close(*stream);
}

// A reflection stream to the server at `address`, open for 10 s.
// grpc.reflection.v1, what newer clients (grpcurl 1.9+, buf curl) ask first: the same answers
// as v1alpha, in its own package.
TEST_F(ReflectionServiceTest, VersionOneListsAndDescribesTheSameServices) {
  namespace rv1 = grpc::reflection::v1;
  std::unique_ptr<rv1::ServerReflection::Stub> stub = rv1::ServerReflection::NewStub(
      grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto stream = stub->ServerReflectionInfo(&context);

  rv1::ServerReflectionRequest list;
  list.set_list_services("*");
  rv1::ServerReflectionResponse listed;
  ASSERT_TRUE(stream->Write(list));
  ASSERT_TRUE(stream->Read(&listed));
  std::vector<std::string> names;
  for (const auto& service : listed.list_services_response().service()) {
    names.push_back(service.name());
  }
  EXPECT_THAT(names, ElementsAre("verdict.v1.DecisionService", "grpc.health.v1.Health",
                                 "grpc.reflection.v1.ServerReflection",
                                 "grpc.reflection.v1alpha.ServerReflection"));

  rv1::ServerReflectionRequest describe;
  describe.set_file_containing_symbol("verdict.v1.DecisionService.Authorize");
  rv1::ServerReflectionResponse described;
  ASSERT_TRUE(stream->Write(describe));
  ASSERT_TRUE(stream->Read(&described));
  google::protobuf::DescriptorPool pool;
  const auto& files = described.file_descriptor_response().file_descriptor_proto();
  ASSERT_EQ(files.size(), 2);
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    google::protobuf::FileDescriptorProto file;
    ASSERT_TRUE(file.ParseFromString(*it));
    ASSERT_NE(pool.BuildFile(file), nullptr) << file.name();
  }
  EXPECT_NE(pool.FindMethodByName("verdict.v1.DecisionService.Authorize"), nullptr);

  // Outside the served files: an error response, and the stream goes on.
  describe.set_file_containing_symbol("verdict.v1.AdminService");
  ASSERT_TRUE(stream->Write(describe));
  ASSERT_TRUE(stream->Read(&described));
  EXPECT_EQ(described.error_response().error_code(), grpc::StatusCode::NOT_FOUND);

  ASSERT_TRUE(stream->WritesDone());
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
}

struct ReflectionSession {
  explicit ReflectionSession(const std::string& address)
      : stub(ServerReflection::NewStub(
            grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    stream = stub->ServerReflectionInfo(&context);
  }

  std::unique_ptr<ServerReflection::Stub> stub;
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;
};

// verdictd's servers: the main one offers reflection (and lists health), the admin one none.
TEST(GrpcServerReflectionTest, OnlyAServerStartedWithReflectionServesIt) {
  v1::DecisionService::CallbackService decision;
  for (const Reflection reflection : {Reflection::kOn, Reflection::kOff}) {
    absl::StatusOr<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(
        "127.0.0.1:0", {{v1::DecisionService::service_full_name(), &decision}}, reflection);
    ASSERT_TRUE(server.ok()) << server.status();
    ReflectionSession session((*server)->address());
    std::unique_ptr<Stream>& stream = session.stream;
    stream->Write(ListServices());
    stream->WritesDone();
    ServerReflectionResponse response;
    const bool answered = stream->Read(&response);
    const grpc::Status status = stream->Finish();
    if (reflection == Reflection::kOn) {
      EXPECT_TRUE(answered);
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_THAT(ServiceNames(response),
                  ElementsAre("verdict.v1.DecisionService", "grpc.health.v1.Health",
                              "grpc.reflection.v1.ServerReflection",
                              "grpc.reflection.v1alpha.ServerReflection"));
    } else {
      EXPECT_FALSE(answered);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
    }
    (*server)->Shutdown(absl::ZeroDuration());
  }
}

// What grpcurl does first: list the services, then describe each one.
TEST(GrpcServerReflectionTest, EveryServiceListedCanBeDescribed) {
  v1::DecisionService::CallbackService decision;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server = GrpcServer::Start(
      "127.0.0.1:0", {{v1::DecisionService::service_full_name(), &decision}}, Reflection::kOn);
  ASSERT_TRUE(server.ok()) << server.status();
  ReflectionSession session((*server)->address());
  std::unique_ptr<Stream>& stream = session.stream;
  ServerReflectionResponse listed;
  ASSERT_TRUE(stream->Write(ListServices()));
  ASSERT_TRUE(stream->Read(&listed));
  ASSERT_THAT(ServiceNames(listed), ::testing::SizeIs(4));
  for (const std::string& name : ServiceNames(listed)) {
    ServerReflectionResponse described;
    ASSERT_TRUE(stream->Write(FileContainingSymbol(name)));
    ASSERT_TRUE(stream->Read(&described));
    EXPECT_FALSE(described.has_error_response())
        << name << ": " << described.error_response().error_message();
    EXPECT_FALSE(FileNames(described).empty()) << name;
  }
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_TRUE(stream->Finish().ok());
  (*server)->Shutdown(absl::ZeroDuration());
}

}  // namespace
}  // namespace verdict
