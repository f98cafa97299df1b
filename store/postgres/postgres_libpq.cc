#include "store/postgres/postgres_libpq.h"

#include <dlfcn.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "store/libpq_loader/libpq_loader.h"

namespace verdict {
namespace {

constexpr char kLibPqSoname[] = "libpq.so.5";

// Resolves `name` into `function`; false (and `error` set) when the library lacks it.
template <typename Function>
bool Resolve(void* library, const char* name, Function& function, std::string& error) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  if (function == nullptr && error.empty()) error = absl::StrCat(kLibPqSoname, " lacks ", name);
  return function != nullptr;
}

absl::StatusOr<LibPq> Load() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer runtimes abort a process that asks for RTLD_DEEPBIND, and without it libpq's
  // OpenSSL would bind to BoringSSL: sanitizer builds (--config=asan, --config=tsan) have no
  // PostgreSQL store, as if libpq5 were not installed.
  return absl::UnavailableError(absl::StrCat("PostgreSQL client library unavailable: ",
                                             kLibPqSoname, " is not loaded in sanitizer builds"));
#endif
  // Never closed: connections may outlive any one store, and unloading OpenSSL is not safe.
  // With RTLD_DEEPBIND, through a shim that keeps libpq on the process's allocator
  // (store/libpq_loader/libpq_loader.h).
  std::string open_error;
  void* library = OpenLibPq(open_error);
  if (library == nullptr) return absl::UnavailableError(open_error);
  LibPq pq;
  std::string error;
#define VERDICT_RESOLVE(name) Resolve(library, "PQ" #name, pq.name, error);
  VERDICT_LIBPQ_FUNCTIONS(VERDICT_RESOLVE)
#undef VERDICT_RESOLVE
  if (!error.empty()) return absl::UnavailableError(error);
  return pq;
}

}  // namespace

absl::StatusOr<const LibPq*> LoadLibPq() {
  static const absl::StatusOr<LibPq>* const loaded = new absl::StatusOr<LibPq>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace verdict
