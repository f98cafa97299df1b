#include "tests/grpc_probes.h"

#include <google/protobuf/unknown_field_set.h>
#include <grpcpp/generic/generic_stub.h>

#include <chrono>
#include <memory>

#include "absl/strings/str_cat.h"

namespace verdict {
namespace {

constexpr auto kProbeTimeout = std::chrono::seconds(10);

// Field numbers of the messages used (grpc/health/v1/health.proto and
// grpc/reflection/v1alpha/reflection.proto).
constexpr int kHealthRequestService = 1;
constexpr int kHealthResponseStatus = 1;
constexpr int kReflectionRequestListServices = 7;
constexpr int kReflectionResponseListServices = 6;
constexpr int kListServiceResponseService = 1;
constexpr int kServiceResponseName = 1;

grpc::ByteBuffer ToByteBuffer(const google::protobuf::UnknownFieldSet& fields) {
  std::string bytes;
  fields.SerializeToString(&bytes);
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

absl::Status ParseByteBuffer(const grpc::ByteBuffer& buffer,
                             google::protobuf::UnknownFieldSet* fields) {
  grpc::Slice slice;
  if (!buffer.TrySingleSlice(&slice).ok() && !buffer.DumpToSingleSlice(&slice).ok()) {
    return absl::InternalError("cannot read the response bytes");
  }
  if (!fields->ParseFromArray(slice.begin(), static_cast<int>(slice.size()))) {
    return absl::InternalError("response is not a protobuf message");
  }
  return absl::OkStatus();
}

// Every length-delimited value of field `number`.
std::vector<std::string> Submessages(const google::protobuf::UnknownFieldSet& fields, int number) {
  std::vector<std::string> values;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    if (field.number() == number &&
        field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      values.push_back(field.length_delimited());
    }
  }
  return values;
}

absl::Status ToAbsl(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

// A completion queue must be shut down and emptied before it is destroyed.
void ShutdownAndDrain(grpc::CompletionQueue& queue) {
  queue.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (queue.Next(&tag, &ok)) {
  }
}

// Waits for the next event on `queue` and checks that it is `tag` and succeeded.
absl::Status Await(grpc::CompletionQueue& queue, void* tag, const char* step) {
  void* got = nullptr;
  bool ok = false;
  if (!queue.Next(&got, &ok) || got != tag || !ok) {
    return absl::UnavailableError(absl::StrCat("call failed at ", step));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<HealthStatus> CheckHealth(const std::shared_ptr<grpc::Channel>& channel,
                                         const std::string& service) {
  grpc::GenericStub stub(channel);
  google::protobuf::UnknownFieldSet request;
  if (!service.empty()) request.AddLengthDelimited(kHealthRequestService, service);
  const grpc::ByteBuffer request_bytes = ToByteBuffer(request);

  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kProbeTimeout);
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", request_bytes, &queue);
  call->StartCall();
  grpc::ByteBuffer response_bytes;
  grpc::Status status;
  int tag = 0;
  call->Finish(&response_bytes, &status, &tag);
  const absl::Status finished = Await(queue, &tag, "finish");
  ShutdownAndDrain(queue);
  if (!status.ok()) return ToAbsl(status);
  if (!finished.ok()) return finished;

  google::protobuf::UnknownFieldSet response;
  if (absl::Status parsed = ParseByteBuffer(response_bytes, &response); !parsed.ok()) {
    return parsed;
  }
  for (int i = 0; i < response.field_count(); ++i) {
    if (response.field(i).number() == kHealthResponseStatus) {
      return static_cast<HealthStatus>(response.field(i).varint());
    }
  }
  return HealthStatus::kUnknown;  // proto3: the zero value is not on the wire
}

absl::StatusOr<std::vector<std::string>> ListServicesByReflection(
    const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kProbeTimeout);
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> stream = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);

  google::protobuf::UnknownFieldSet request;
  request.AddLengthDelimited(kReflectionRequestListServices, "*");
  const grpc::ByteBuffer request_bytes = ToByteBuffer(request);
  grpc::ByteBuffer response_bytes;
  grpc::Status status;
  int tag = 0;
  stream->StartCall(&tag);
  absl::Status step = Await(queue, &tag, "start");
  if (step.ok()) {
    stream->Write(request_bytes, &tag);
    step = Await(queue, &tag, "write");
  }
  if (step.ok()) {
    stream->WritesDone(&tag);
    step = Await(queue, &tag, "writes done");
  }
  if (step.ok()) {
    stream->Read(&response_bytes, &tag);
    step = Await(queue, &tag, "read");
  }
  stream->Finish(&status, &tag);
  const absl::Status finished = Await(queue, &tag, "finish");
  ShutdownAndDrain(queue);
  if (!status.ok()) return ToAbsl(status);
  if (!finished.ok()) return finished;
  if (!step.ok()) return step;

  google::protobuf::UnknownFieldSet response;
  if (absl::Status parsed = ParseByteBuffer(response_bytes, &response); !parsed.ok()) {
    return parsed;
  }
  std::vector<std::string> names;
  for (const std::string& list : Submessages(response, kReflectionResponseListServices)) {
    google::protobuf::UnknownFieldSet list_fields;
    list_fields.ParseFromString(list);
    for (const std::string& service : Submessages(list_fields, kListServiceResponseService)) {
      google::protobuf::UnknownFieldSet service_fields;
      service_fields.ParseFromString(service);
      for (const std::string& name : Submessages(service_fields, kServiceResponseName)) {
        names.push_back(name);
      }
    }
  }
  return names;
}

}  // namespace verdict
