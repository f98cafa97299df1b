// How the pool (store/connection_pool.h) opens PostgreSQL connections, and whether an idle one
// may serve again: the pooling a sidecar needs, so it holds a few connections however many calls
// it serves.
//
// Each connection is brought to the current schema as it opens. An idle connection that lost
// its server (a restart, a failover, pg_terminate_backend) is closed instead of leased. Pools of
// PostgreSQL connections are breakable: a call that waits on a server that stopped answering is
// ended by BreakLeased, and a checkout waits for a free connection at most the statement
// timeout.
//
//   ConnectionPool pool(PostgresSource(pq, conninfo, options), PostgresPoolOptions(options, 4));
#ifndef VERDICT_STORE_POSTGRES_POSTGRES_SOURCE_H_
#define VERDICT_STORE_POSTGRES_POSTGRES_SOURCE_H_

#include <memory>
#include <string>

#include "store/connection_pool.h"
#include "store/postgres/postgres_connection.h"
#include "store/postgres/postgres_libpq.h"

namespace verdict {

std::unique_ptr<ConnectionSource> PostgresSource(const LibPq& pq, std::string conninfo,
                                                 PostgresConnectionOptions options);

// A pool of `size` PostgreSQL connections: breakable, waiting for a free one at most the
// statement timeout.
PoolOptions PostgresPoolOptions(const PostgresConnectionOptions& options, int size);

}  // namespace verdict

#endif  // VERDICT_STORE_POSTGRES_POSTGRES_SOURCE_H_
