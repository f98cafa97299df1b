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

// The libpq functions the PostgreSQL store uses, with libpq's own signatures.
struct LibPq {
  decltype(&::PQconnectdbParams) connectdbParams;
  decltype(&::PQconnectStartParams) connectStartParams;
  decltype(&::PQconnectPoll) connectPoll;
  decltype(&::PQstatus) status;
  decltype(&::PQerrorMessage) errorMessage;
  decltype(&::PQfinish) finish;
  decltype(&::PQtransactionStatus) transactionStatus;
  decltype(&::PQresultStatus) resultStatus;
  decltype(&::PQresultErrorMessage) resultErrorMessage;
  decltype(&::PQresultErrorField) resultErrorField;
  decltype(&::PQclear) clear;
  decltype(&::PQntuples) ntuples;
  decltype(&::PQnfields) nfields;
  decltype(&::PQftype) ftype;
  decltype(&::PQgetvalue) getvalue;
  decltype(&::PQgetlength) getlength;
  decltype(&::PQgetisnull) getisnull;
  decltype(&::PQcmdTuples) cmdTuples;
  decltype(&::PQsetNoticeProcessor) setNoticeProcessor;
  // Sending without waiting, and pipelines (several commands in one round trip).
  decltype(&::PQsendQuery) sendQuery;
  decltype(&::PQsendQueryParams) sendQueryParams;
  decltype(&::PQsendPrepare) sendPrepare;
  decltype(&::PQsendQueryPrepared) sendQueryPrepared;
  decltype(&::PQgetResult) getResult;
  decltype(&::PQenterPipelineMode) enterPipelineMode;
  decltype(&::PQexitPipelineMode) exitPipelineMode;
  decltype(&::PQpipelineSync) pipelineSync;
  // Waiting for an answer with a deadline of verdict's own: reading what the server sent
  // meanwhile (also the FATAL message that ends an idle connection), whether an answer is whole.
  decltype(&::PQconsumeInput) consumeInput;
  decltype(&::PQisBusy) isBusy;
  decltype(&::PQsocket) socket;
};

// The process's libpq, loaded on the first call and kept until exit; thread-safe. UNAVAILABLE
// naming the library when it cannot be loaded.
absl::StatusOr<const LibPq*> LoadLibPq();

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POSTGRES_LIBPQ_H_
