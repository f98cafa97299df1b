// gRPC's own log lines (gpr_log: a port in use, a connection error) through verdict's sink
// (common/log.h): each with a time, a level and "grpc <file>:<line>", in the process's format,
// instead of gRPC's own "E1201 18:00:00.123 ... file.cc:123] message" lines.
//
//   SetLogFormat(*format);
//   RouteGrpcLogToSink();     // before the first gRPC call
#ifndef VERDICT_COMMON_GRPC_LOG_H_
#define VERDICT_COMMON_GRPC_LOG_H_

namespace verdict {

void RouteGrpcLogToSink();

}  // namespace verdict

#endif  // VERDICT_COMMON_GRPC_LOG_H_
