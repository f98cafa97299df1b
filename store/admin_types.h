// The admin plane's request and answer types now live with its rules (decision/admin/).
#ifndef VERDICT_STORE_ADMIN_TYPES_H_
#define VERDICT_STORE_ADMIN_TYPES_H_

#include "decision/admin/admin_types.h"  // IWYU pragma: export

#endif  // VERDICT_STORE_ADMIN_TYPES_H_
