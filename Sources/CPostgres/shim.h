#ifndef REMVVM_CPOSTGRES_SHIM_H
#define REMVVM_CPOSTGRES_SHIM_H

// libpq, imported by PostgresJournal only. Debian's libpq-dev puts it in /usr/include/postgresql
// (pkg-config libpq gives that path).
#include <libpq-fe.h>
// The follower's wake-up descriptor (an appender hands it what it committed).
#include <sys/eventfd.h>

/// A notice processor that drops notices and warnings. libpq's default prints them to stderr,
/// including the "FATAL: terminating connection" a server shutting down sends: the Swift side
/// turns that into a thrown error instead. A plain C function, not a Swift closure.
static inline void remvvm_pq_ignore_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}

/// Installs ``remvvm_pq_ignore_notice`` on `connection`.
static inline void remvvm_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, remvvm_pq_ignore_notice, NULL);
}

#endif
