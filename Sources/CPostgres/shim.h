#ifndef REMVVM_CPOSTGRES_SHIM_H
#define REMVVM_CPOSTGRES_SHIM_H

// libpq, imported by PostgresJournal only. Debian's libpq-dev puts it in /usr/include/postgresql
// (pkg-config libpq gives that path).
#include <libpq-fe.h>

#endif
