#include "server/reflection_service.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <deque>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace verdict {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;

// Answers queued for a client that sends requests faster than it reads the answers. At this
// many the stream stops reading until a write completes, so no client grows the queue unbounded.
constexpr size_t kMaxQueuedResponses = 8;

template <typename Response>
void SetError(grpc::StatusCode code, std::string message, Response* response) {
  response->mutable_error_response()->set_error_code(code);
  response->mutable_error_response()->set_error_message(std::move(message));
}

// Answers the requests of one stream from a descriptor pool, and remembers which files the
// stream has carried so that a dependency is sent once per stream.
template <typename Protocol>
class Responder {
 public:
  using ServerReflectionRequest = typename Protocol::Request;
  using ServerReflectionResponse = typename Protocol::Response;

  Responder(const std::vector<std::string>& service_names,
            const absl::flat_hash_set<std::string>& served_files, const DescriptorPool& pool)
      : service_names_(service_names), served_files_(served_files), pool_(pool) {}

  ServerReflectionResponse Answer(const ServerReflectionRequest& request) {
    ServerReflectionResponse response;
    response.set_valid_host(request.host());
    *response.mutable_original_request() = request;
    switch (request.message_request_case()) {
      case ServerReflectionRequest::kFileByFilename:
        AnswerFile(Served(pool_.FindFileByName(request.file_by_filename())),
                   absl::StrCat("file not found: ", request.file_by_filename()), &response);
        break;
      case ServerReflectionRequest::kFileContainingSymbol:
        AnswerFile(Served(pool_.FindFileContainingSymbol(request.file_containing_symbol())),
                   absl::StrCat("symbol not found: ", request.file_containing_symbol()), &response);
        break;
      case ServerReflectionRequest::kFileContainingExtension:
        AnswerExtension(request.file_containing_extension(), &response);
        break;
      case ServerReflectionRequest::kAllExtensionNumbersOfType:
        AnswerExtensionNumbers(request.all_extension_numbers_of_type(), &response);
        break;
      case ServerReflectionRequest::kListServices:
        for (const std::string& name : service_names_) {
          response.mutable_list_services_response()->add_service()->set_name(name);
        }
        break;
      case ServerReflectionRequest::MESSAGE_REQUEST_NOT_SET:
        // Also what a request of a newer protocol revision looks like.
        SetError(grpc::StatusCode::UNIMPLEMENTED, "no reflection request this server knows",
                 &response);
        break;
    }
    return response;
  }

 private:
  // `file` when it is one of the served services' files or their dependencies, else null: the
  // process's pool also holds the protos of other listeners (admin.proto), which this server
  // does not describe.
  const FileDescriptor* Served(const FileDescriptor* file) const {
    return file != nullptr && served_files_.contains(file->name()) ? file : nullptr;
  }

  // The file asked for, always (a client takes the first descriptor as the answer), then its
  // transitive dependencies not yet carried by the stream.
  void AnswerFile(const FileDescriptor* file, std::string not_found,
                  ServerReflectionResponse* response) {
    if (file == nullptr) {
      SetError(grpc::StatusCode::NOT_FOUND, std::move(not_found), response);
      return;
    }
    auto* files = response->mutable_file_descriptor_response();
    files_sent_.insert(file->name());
    AddFile(*file, files);
    AddUnsentDependencies(*file, files);
  }

  void AddUnsentDependencies(const FileDescriptor& file,
                             typename Protocol::FileDescriptorResponse* files) {
    for (int i = 0; i < file.dependency_count(); ++i) {
      const FileDescriptor& dependency = *file.dependency(i);
      if (!files_sent_.insert(dependency.name()).second) continue;
      AddFile(dependency, files);
      AddUnsentDependencies(dependency, files);
    }
  }

  static void AddFile(const FileDescriptor& file,
                      typename Protocol::FileDescriptorResponse* files) {
    google::protobuf::FileDescriptorProto proto;
    file.CopyTo(&proto);
    files->add_file_descriptor_proto(proto.SerializeAsString());
  }

  void AnswerExtension(const typename Protocol::ExtensionRequest& request,
                       ServerReflectionResponse* response) {
    const Descriptor* type = pool_.FindMessageTypeByName(request.containing_type());
    const FieldDescriptor* extension =
        type == nullptr ? nullptr : pool_.FindExtensionByNumber(type, request.extension_number());
    AnswerFile(extension == nullptr ? nullptr : Served(extension->file()),
               absl::StrCat("extension not found: ", request.containing_type(), " field ",
                            request.extension_number()),
               response);
  }

  void AnswerExtensionNumbers(const std::string& type_name, ServerReflectionResponse* response) {
    const Descriptor* type = pool_.FindMessageTypeByName(type_name);
    if (type == nullptr || Served(type->file()) == nullptr) {
      SetError(grpc::StatusCode::NOT_FOUND, absl::StrCat("message type not found: ", type_name),
               response);
      return;
    }
    std::vector<const FieldDescriptor*> extensions;
    pool_.FindAllExtensions(type, &extensions);
    auto* numbers = response->mutable_all_extension_numbers_response();
    numbers->set_base_type_name(type->full_name());
    for (const FieldDescriptor* extension : extensions) {
      if (Served(extension->file()) == nullptr) continue;
      numbers->add_extension_number(extension->number());
    }
  }

  const std::vector<std::string>& service_names_;
  const absl::flat_hash_set<std::string>& served_files_;
  const DescriptorPool& pool_;
  absl::flat_hash_set<std::string> files_sent_;
};

// One stream. gRPC allows one read and one write in flight at a time, and their reactions may
// run at once on different threads: the mutex orders them. Answers wait in `queued_` while the
// previous one is being written.
template <typename Protocol>
class ReflectionStream final
    : public grpc::ServerBidiReactor<typename Protocol::Request, typename Protocol::Response> {
 public:
  using ServerReflectionRequest = typename Protocol::Request;
  using ServerReflectionResponse = typename Protocol::Response;

  ReflectionStream(const std::vector<std::string>& service_names,
                   const absl::flat_hash_set<std::string>& served_files)
      : responder_(service_names, served_files, *DescriptorPool::generated_pool()) {
    absl::MutexLock lock(&mu_);
    StartReadLocked();
  }

  void OnReadDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    reading_ = false;
    // The client half-closed, or the call is over (a failed write may already have finished it).
    if (!ok || finished_) {
      client_done_ = true;
      FinishIfDoneLocked();
      return;
    }
    queued_.push_back(responder_.Answer(request_));
    if (!writing_) StartWriteLocked();
    if (queued_.size() < kMaxQueuedResponses) StartReadLocked();
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    queued_.pop_front();
    if (!ok) {  // the call is cancelled: nothing more reaches the client
      queued_.clear();
      client_done_ = true;
      if (!finished_) {
        finished_ = true;
        this->Finish(grpc::Status(grpc::StatusCode::CANCELLED, "reflection stream broken"));
      }
      return;
    }
    if (!queued_.empty()) StartWriteLocked();
    if (!reading_ && !client_done_ && queued_.size() < kMaxQueuedResponses) StartReadLocked();
    FinishIfDoneLocked();
  }

  void OnDone() override { delete this; }

 private:
  ~ReflectionStream() override = default;  // only OnDone deletes

  void StartReadLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    reading_ = true;
    this->StartRead(&request_);
  }

  // Writes the oldest queued answer; it stays at the front of the queue, untouched, until
  // OnWriteDone.
  void StartWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    writing_ = true;
    this->StartWrite(&queued_.front());
  }

  // OK once the client has half-closed and every answer is written.
  void FinishIfDoneLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_ || !client_done_ || writing_) return;
    finished_ = true;
    this->Finish(grpc::Status::OK);
  }

  absl::Mutex mu_;
  Responder<Protocol> responder_ ABSL_GUARDED_BY(mu_);
  ServerReflectionRequest request_ ABSL_GUARDED_BY(mu_);  // gRPC fills it while reading_
  // Deque: pushing answers leaves the one being written where it is.
  std::deque<ServerReflectionResponse> queued_ ABSL_GUARDED_BY(mu_);
  bool reading_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool client_done_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

void AddWithDependencies(const FileDescriptor& file, absl::flat_hash_set<std::string>& files) {
  if (!files.insert(file.name()).second) return;
  for (int i = 0; i < file.dependency_count(); ++i) AddWithDependencies(*file.dependency(i), files);
}

// The files that define the services and everything they import.
absl::flat_hash_set<std::string> FilesOf(const std::vector<std::string>& service_names) {
  absl::flat_hash_set<std::string> files;
  for (const std::string& name : service_names) {
    const google::protobuf::ServiceDescriptor* service =
        DescriptorPool::generated_pool()->FindServiceByName(name);
    if (service != nullptr) AddWithDependencies(*service->file(), files);
  }
  return files;
}

}  // namespace

template <typename Protocol>
ReflectionServiceOf<Protocol>::ReflectionServiceOf(std::vector<std::string> service_names)
    : service_names_(std::move(service_names)), served_files_(FilesOf(service_names_)) {}

template <typename Protocol>
grpc::ServerBidiReactor<typename Protocol::Request, typename Protocol::Response>*
ReflectionServiceOf<Protocol>::ServerReflectionInfo(grpc::CallbackServerContext* /*context*/) {
  return new ReflectionStream<Protocol>(service_names_, served_files_);
}

template class ReflectionServiceOf<ReflectionV1>;
template class ReflectionServiceOf<ReflectionV1Alpha>;

namespace {

std::vector<std::string> WithReflection(std::vector<std::string> service_names) {
  service_names.push_back(ReflectionV1::Service::service_full_name());
  service_names.push_back(ReflectionV1Alpha::Service::service_full_name());
  return service_names;
}

}  // namespace

ReflectionServices::ReflectionServices(const std::vector<std::string>& service_names)
    : v1(WithReflection(service_names)), v1alpha(WithReflection(service_names)) {}

}  // namespace verdict
