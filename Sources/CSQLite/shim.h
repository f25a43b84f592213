#ifndef REMVVM_CSQLITE_SHIM_H
#define REMVVM_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast of -1 to a destructor pointer, which Swift cannot import: bind calls
/// that must copy the bytes use this instead.
static inline sqlite3_destructor_type remvvm_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
