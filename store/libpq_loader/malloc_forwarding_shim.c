// The first object of libpq's link group (store/libpq_loader/libpq_loader.h): a shared object
// that needs libpq.so.5 and defines the C allocation functions, each forwarding to the one the
// process itself uses (verdict_libpq_*, defined in libpq_loader.cc and resolved, like every symbol
// this group lacks, in the process's global scope when the group is loaded).
//
// libpq is loaded with RTLD_DEEPBIND, so libpq, libssl and libcrypto look symbols up in this
// group first. Without this object first in the group their malloc and free would be glibc's,
// while the allocations glibc makes for them (strdup, getaddrinfo's lists, ...) go through the
// process's allocator: with tcmalloc linked, libpq freeing a string glibc's strdup allocated
// ended the process ("free(): invalid pointer"). With it, everyone in the process allocates from
// one allocator, whichever the binary links.
#include <stddef.h>

void* verdict_libpq_malloc(size_t size);
void verdict_libpq_free(void* pointer);
void* verdict_libpq_calloc(size_t count, size_t size);
void* verdict_libpq_realloc(void* pointer, size_t size);
void* verdict_libpq_reallocarray(void* pointer, size_t count, size_t size);
int verdict_libpq_posix_memalign(void** pointer, size_t alignment, size_t size);
void* verdict_libpq_aligned_alloc(size_t alignment, size_t size);
void* verdict_libpq_memalign(size_t alignment, size_t size);
void* verdict_libpq_valloc(size_t size);
void* verdict_libpq_pvalloc(size_t size);
size_t verdict_libpq_malloc_usable_size(void* pointer);

void* malloc(size_t size) { return verdict_libpq_malloc(size); }
void free(void* pointer) { verdict_libpq_free(pointer); }
void* calloc(size_t count, size_t size) { return verdict_libpq_calloc(count, size); }
void* realloc(void* pointer, size_t size) { return verdict_libpq_realloc(pointer, size); }
void* reallocarray(void* pointer, size_t count, size_t size) {
  return verdict_libpq_reallocarray(pointer, count, size);
}
int posix_memalign(void** pointer, size_t alignment, size_t size) {
  return verdict_libpq_posix_memalign(pointer, alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  return verdict_libpq_aligned_alloc(alignment, size);
}
void* memalign(size_t alignment, size_t size) { return verdict_libpq_memalign(alignment, size); }
void* valloc(size_t size) { return verdict_libpq_valloc(size); }
void* pvalloc(size_t size) { return verdict_libpq_pvalloc(size); }
size_t malloc_usable_size(void* pointer) { return verdict_libpq_malloc_usable_size(pointer); }
