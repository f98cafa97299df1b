// Protobuf's C++ library logs an ERROR line for every string field of invalid UTF-8 it is asked
// to parse. verdict answers such a request with INVALID_ARGUMENT (ext_authz with a 400), so the
// line tells an operator nothing to act on, and any client could fill verdictd's log with it.
// QuietInvalidUtf8ParseErrors drops exactly those lines; every other protobuf message, the same
// complaint about a message being serialized (verdict's own bug) included, goes to verdict's log
// (common/log.h) with its time, level and "protobuf <file>:<line>".
//
//   QuietInvalidUtf8ParseErrors();  // once, at start
#ifndef VERDICT_SERVER_PROTOBUF_LOG_H_
#define VERDICT_SERVER_PROTOBUF_LOG_H_

namespace verdict {

void QuietInvalidUtf8ParseErrors();

}  // namespace verdict

#endif  // VERDICT_SERVER_PROTOBUF_LOG_H_
