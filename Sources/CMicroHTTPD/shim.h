#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

/* microhttpd.h expects these to be included first. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
/* For the stream writer thread (MicroHTTP's WritableWatcher): Glibc's Swift overlay has
   neither. */
#include <sys/epoll.h>
#include <sys/eventfd.h>

/*
 * Everything a daemon needs at start, as one struct. Swift builds it with the
 * memberwise initializer, so no function pointer ever has to be cast to an integer
 * on the Swift side (MHD_OptionItem stores callbacks as intptr_t).
 */
typedef struct cmhd_daemon_config {
    unsigned int flags;
    /* An already bound and listening socket (MHD_OPTION_LISTEN_SOCKET). */
    MHD_socket listen_socket;
    MHD_AccessHandlerCallback access_handler;
    void *access_handler_cls;
    /* May be NULL. Decides whether an accepted connection is kept; used to refuse new
       connections while shutting down instead of MHD_quiesce_daemon, which in 0.9.75 races
       its own worker threads removing the listen socket from epoll and MHD_PANICs. */
    MHD_AcceptPolicyCallback accept_policy;
    void *accept_policy_cls;
    MHD_RequestCompletedCallback request_completed;
    void *request_completed_cls;
    /* May be NULL. Called with the request target as soon as the request line is in, before
       libmicrohttpd parses the query into its connection memory pool (MHD_OPTION_URI_LOG_CALLBACK);
       what it returns becomes the request's *con_cls. How the server refuses a query that would
       overflow the pool: 0.9.75 ignores that failure and the connection hangs without an answer
       (docs/libmicrohttpd-errors.md). */
    void *(*uri_received) (void *cls, const char *uri, struct MHD_Connection *connection);
    void *uri_received_cls;
    /* Told when each connection opens and closes (MHD_OPTION_NOTIFY_CONNECTION): how the
       server counts connections, answers those over its limit, and finds heads that take too
       long. CLOSED comes on the worker thread before the socket is closed. */
    MHD_NotifyConnectionCallback notify_connection;
    void *notify_connection_cls;
    /* 0 for none. */
    unsigned int per_ip_connection_limit;
    /* May be NULL: then MHD keeps its default (stderr, if MHD_USE_ERROR_LOG is set). */
    MHD_LogCallback logger;
    void *logger_cls;
    unsigned int thread_pool_size;
    /* Percent-decodes the path and the query (MHD_OPTION_UNESCAPE_CALLBACK); may be NULL for
       libmicrohttpd's own. */
    size_t (*unescape) (void *cls, struct MHD_Connection *connection, char *text);
    unsigned int connection_limit;
    size_t connection_memory_limit;
    unsigned int connection_timeout_seconds;
} cmhd_daemon_config;

/*
 * Exists because MHD_start_daemon is variadic and Swift cannot call variadic C
 * functions: the options travel as one MHD_OPTION_ARRAY instead.
 */
static inline struct MHD_Daemon *
cmhd_start_daemon (const cmhd_daemon_config *config)
{
    struct MHD_OptionItem options[12];
    unsigned int count = 0;

    options[count++] = (struct MHD_OptionItem) {
        MHD_OPTION_LISTEN_SOCKET, (intptr_t) config->listen_socket, NULL };
    options[count++] = (struct MHD_OptionItem) {
        MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) config->request_completed,
        config->request_completed_cls };
    if (config->thread_pool_size > 1)
        options[count++] = (struct MHD_OptionItem) {
            MHD_OPTION_THREAD_POOL_SIZE, (intptr_t) config->thread_pool_size, NULL };
    options[count++] = (struct MHD_OptionItem) {
        MHD_OPTION_CONNECTION_LIMIT, (intptr_t) config->connection_limit, NULL };
    options[count++] = (struct MHD_OptionItem) {
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) config->connection_memory_limit, NULL };
    options[count++] = (struct MHD_OptionItem) {
        MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t) config->connection_timeout_seconds, NULL };
    options[count++] = (struct MHD_OptionItem) {
        MHD_OPTION_NOTIFY_CONNECTION, (intptr_t) config->notify_connection,
        config->notify_connection_cls };
    if (NULL != config->uri_received)
        options[count++] = (struct MHD_OptionItem) {
            MHD_OPTION_URI_LOG_CALLBACK, (intptr_t) config->uri_received, config->uri_received_cls };
    if (NULL != config->unescape)
        options[count++] = (struct MHD_OptionItem) {
            MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t) config->unescape, NULL };
    if (config->per_ip_connection_limit > 0)
        options[count++] = (struct MHD_OptionItem) {
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t) config->per_ip_connection_limit, NULL };
    options[count++] = (struct MHD_OptionItem) { MHD_OPTION_END, 0, NULL };

    /* The logger must be the very first option (not inside the array), or MHD reports
       that to stderr. Without one, MHD keeps its default logger. */
    if (NULL == config->logger)
        return MHD_start_daemon (config->flags, 0,
                                 config->accept_policy, config->accept_policy_cls,
                                 config->access_handler, config->access_handler_cls,
                                 MHD_OPTION_ARRAY, options,
                                 MHD_OPTION_END);
    return MHD_start_daemon (config->flags, 0,
                             config->accept_policy, config->accept_policy_cls,
                             config->access_handler, config->access_handler_cls,
                             MHD_OPTION_EXTERNAL_LOGGER, config->logger, config->logger_cls,
                             MHD_OPTION_ARRAY, options,
                             MHD_OPTION_END);
}

/*
 * Exists because MHD_get_connection_info is variadic: the connection's socket, or
 * MHD_INVALID_SOCKET if unavailable.
 */
static inline MHD_socket
cmhd_connection_socket (struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return (NULL == info) ? MHD_INVALID_SOCKET : info->connect_fd;
}

/*
 * Exists because MHD_get_connection_info is variadic: what the connection-notification
 * callback stored in *socket_context when the connection opened, or NULL.
 */
static inline void *
cmhd_connection_socket_context (struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info (connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return (NULL == info) ? NULL : info->socket_context;
}

/* Exists because MHD_SIZE_UNKNOWN is a macro expression Swift does not import. */
static inline uint64_t
cmhd_size_unknown (void)
{
    return MHD_SIZE_UNKNOWN;
}

/*
 * Exist because the reader's end markers are casts of negative numbers to ssize_t,
 * which Swift does not import as constants.
 */
static inline ssize_t
cmhd_content_reader_end_of_stream (void)
{
    return MHD_CONTENT_READER_END_OF_STREAM;
}

static inline ssize_t
cmhd_content_reader_end_with_error (void)
{
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

#endif /* CMICROHTTPD_SHIM_H */
