// The admin plane's rows (app/admin_transaction.h) read and written in SQL over a database
// connection, for both databases.
//
//   database.InTransaction(kind, [&](Connection& c) { return body(*AdminTransactionOn(c)); });
#ifndef VERDICT_STORE_ADMIN_TRANSACTION_H_
#define VERDICT_STORE_ADMIN_TRANSACTION_H_

#include <memory>

#include "app/admin_transaction.h"
#include "store/connection.h"

namespace verdict {

// The rows over `connection`, inside the transaction it holds; `connection` must outlive it.
std::unique_ptr<AdminTransaction> AdminTransactionOn(Connection& connection);

}  // namespace verdict

#endif  // VERDICT_STORE_ADMIN_TRANSACTION_H_
