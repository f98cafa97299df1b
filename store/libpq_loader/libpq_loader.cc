#include "store/libpq_loader/libpq_loader.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"

// The shim's bytes (libpq_shim_embed.cc, generated from the shared object by the BUILD's genrule).
extern const unsigned char verdict_libpq_shim_bytes[];
extern const size_t verdict_libpq_shim_size;

// What the shim forwards to: the allocation functions as this process resolves them (tcmalloc's
// when the binary links it, glibc's otherwise). Exported (see the BUILD's linkopts) so that the
// shim's undefined references resolve here.
extern "C" {
__attribute__((visibility("default"))) void* verdict_libpq_malloc(size_t size) {
  return malloc(size);
}
__attribute__((visibility("default"))) void verdict_libpq_free(void* pointer) { free(pointer); }
__attribute__((visibility("default"))) void* verdict_libpq_calloc(size_t count, size_t size) {
  return calloc(count, size);
}
__attribute__((visibility("default"))) void* verdict_libpq_realloc(void* pointer, size_t size) {
  return realloc(pointer, size);
}
__attribute__((visibility("default"))) void* verdict_libpq_reallocarray(void* pointer, size_t count,
                                                                        size_t size) {
  return reallocarray(pointer, count, size);
}
__attribute__((visibility("default"))) int verdict_libpq_posix_memalign(void** pointer,
                                                                        size_t alignment,
                                                                        size_t size) {
  return posix_memalign(pointer, alignment, size);
}
__attribute__((visibility("default"))) void* verdict_libpq_aligned_alloc(size_t alignment,
                                                                         size_t size) {
  return aligned_alloc(alignment, size);
}
__attribute__((visibility("default"))) void* verdict_libpq_memalign(size_t alignment, size_t size) {
  return memalign(alignment, size);
}
__attribute__((visibility("default"))) void* verdict_libpq_valloc(size_t size) {
  return valloc(size);
}
__attribute__((visibility("default"))) void* verdict_libpq_pvalloc(size_t size) {
  return pvalloc(size);
}
__attribute__((visibility("default"))) size_t verdict_libpq_malloc_usable_size(void* pointer) {
  return malloc_usable_size(pointer);
}
}

namespace verdict {
namespace {

// Referenced from OpenLibPq, so that the linker's --gc-sections keeps the functions above: nothing
// in the binary calls them, the shim does once loaded.
void* const kForwarders[] = {
    reinterpret_cast<void*>(&verdict_libpq_malloc),
    reinterpret_cast<void*>(&verdict_libpq_free),
    reinterpret_cast<void*>(&verdict_libpq_calloc),
    reinterpret_cast<void*>(&verdict_libpq_realloc),
    reinterpret_cast<void*>(&verdict_libpq_reallocarray),
    reinterpret_cast<void*>(&verdict_libpq_posix_memalign),
    reinterpret_cast<void*>(&verdict_libpq_aligned_alloc),
    reinterpret_cast<void*>(&verdict_libpq_memalign),
    reinterpret_cast<void*>(&verdict_libpq_valloc),
    reinterpret_cast<void*>(&verdict_libpq_pvalloc),
    reinterpret_cast<void*>(&verdict_libpq_malloc_usable_size),
};

}  // namespace

void* OpenLibPq(std::string& error) {
  asm volatile("" : : "r"(kForwarders) : "memory");
  // The shim as a file dlopen can open: a memory file, closed once loaded (the loader keeps its
  // own mapping).
  const int fd = memfd_create("verdict-libpq-shim.so", MFD_CLOEXEC);
  if (fd < 0) {
    error = "PostgreSQL client library unavailable: cannot create the loader's memory file";
    return nullptr;
  }
  size_t written = 0;
  while (written < verdict_libpq_shim_size) {
    const ssize_t n =
        write(fd, verdict_libpq_shim_bytes + written, verdict_libpq_shim_size - written);
    if (n <= 0) {
      close(fd);
      error = "PostgreSQL client library unavailable: cannot write the loader's memory file";
      return nullptr;
    }
    written += static_cast<size_t>(n);
  }
  const std::string path = absl::StrCat("/proc/self/fd/", fd);
  // Never closed: connections may outlive any one store, and unloading OpenSSL is not safe.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  close(fd);
  if (library == nullptr) {
    error = absl::StrCat("PostgreSQL client library unavailable: ", dlerror(),
                         " (install Debian's libpq5)");
  }
  return library;
}

}  // namespace verdict
