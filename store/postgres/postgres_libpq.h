// libpq, loaded so that its OpenSSL never meets verdict's BoringSSL.
//
// Debian's libpq links OpenSSL 3 (TLS to the server, SCRAM, random numbers). verdict links
// BoringSSL, which exports the same symbol names without versions; linked together, the dynamic
// linker binds some of libpq's and libssl's OpenSSL calls to BoringSSL and the first TLS or SCRAM
// connection corrupts memory (measured: a segmentation fault in the handshake). So the store never
// links -lpq: LoadLibPq opens libpq.so.5 with RTLD_DEEPBIND, which makes libpq and the libraries it
// brings (libssl.so.3, libcrypto.so.3) resolve their symbols among themselves first, and hands out
// the few entry points the store calls. <libpq-fe.h> supplies the types only.
//
//   absl::StatusOr<const LibPq*> pq = LoadLibPq();
//   if (!pq.ok()) return pq.status();  // UNAVAILABLE: libpq5 is not installed
//   PGconn* conn = (*pq)->connectdbParams(keywords, values, /*expand_dbname=*/1);
#ifndef VERDICT_STORE_POSTGRES_POSTGRES_LIBPQ_H_
#define VERDICT_STORE_POSTGRES_POSTGRES_LIBPQ_H_

#include <postgresql/libpq-fe.h>

#include "absl/status/statusor.h"

namespace verdict {

// The libpq functions the PostgreSQL store uses (PQconnectdbParams ... as LibPq::connectdbParams
// ...), with libpq's own signatures: connecting, results, then sending without waiting and
// pipelines (several commands in one round trip), then waiting for an answer with a deadline of
// verdict's own (reading what the server sent meanwhile, also the FATAL message that ends an idle
// connection; whether an answer is whole).
// clang-format off
#define VERDICT_LIBPQ_FUNCTIONS(X)                                                            \
  X(connectdbParams) X(connectStartParams) X(connectPoll) X(status) X(errorMessage) X(finish) \
  X(transactionStatus) X(resultStatus) X(resultErrorMessage) X(resultErrorField) X(clear)     \
  X(ntuples) X(nfields) X(ftype) X(getvalue) X(getlength) X(getisnull) X(cmdTuples)           \
  X(setNoticeProcessor)                                                                       \
  X(sendQuery) X(sendQueryParams) X(sendPrepare) X(sendQueryPrepared) X(getResult)            \
  X(enterPipelineMode) X(exitPipelineMode) X(pipelineSync) X(sendFlushRequest) X(flush)         \
  X(consumeInput) X(isBusy) X(socket)
// clang-format on

struct LibPq {
#define VERDICT_LIBPQ_MEMBER(name) decltype(&::PQ##name) name;
  VERDICT_LIBPQ_FUNCTIONS(VERDICT_LIBPQ_MEMBER)
#undef VERDICT_LIBPQ_MEMBER
};

// The process's libpq, loaded on the first call and kept until exit; thread-safe. UNAVAILABLE
// naming the library when it cannot be loaded.
absl::StatusOr<const LibPq*> LoadLibPq();

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POSTGRES_LIBPQ_H_
