// Loads Debian's libpq so that its OpenSSL never meets verdict's BoringSSL and its memory comes
// from the process's own allocator (store/postgres/postgres_libpq.h uses it).
//
// libpq is opened with RTLD_DEEPBIND (postgres_libpq.h says why): libpq, libssl and libcrypto
// resolve their symbols in their own link group first. glibc is in that group, so without more
// their malloc and free would be glibc's even when the process links another allocator
// (tcmalloc, //allocator), and a string glibc allocated for them through that allocator would
// be freed with glibc's free. So the group is opened through a small shared object,
// malloc_forwarding_shim.c, that needs libpq.so.5 and comes before glibc in the group: its
// malloc, free, ... forward to the process's (the verdict_libpq_* functions below, exported by
// every binary that links this library). The shim is built into the binary and handed to
// dlopen through a memory file, so the binary needs no file beside it.
//
//   std::string error;
//   void* libpq = OpenLibPq(error);  // dlsym(libpq, "PQconnectdbParams") finds libpq's
//   if (libpq == nullptr) ...        // error names what failed (libpq5 not installed, ...)
#ifndef VERDICT_STORE_LIBPQ_LOADER_LIBPQ_LOADER_H_
#define VERDICT_STORE_LIBPQ_LOADER_LIBPQ_LOADER_H_

#include <string>

namespace verdict {

// A dlopen handle through which dlsym finds libpq's functions, or null with `error` set.
// Loads the group once per call: call it once per process (postgres_libpq.cc does).
void* OpenLibPq(std::string& error);

}  // namespace verdict

#endif  // VERDICT_STORE_LIBPQ_LOADER_LIBPQ_LOADER_H_
