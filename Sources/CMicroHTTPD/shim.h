#ifndef EVTOOL_CMICROHTTPD_SHIM_H
#define EVTOOL_CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// The settings of one daemon (MHD_start_daemon is variadic, which Swift cannot call).
struct evtool_mhd_settings {
    unsigned int flags;
    const struct sockaddr *address;
    unsigned int threads;
    unsigned int connection_limit;
    unsigned int connection_timeout;
    size_t connection_memory_limit;
    unsigned int listen_backlog;
    MHD_AccessHandlerCallback handler;
    void *handler_cls;
    MHD_RequestCompletedCallback completed;
    void *completed_cls;
    /// Returns the length of its argument unchanged: evtool decodes paths and queries itself,
    /// so that an encoded slash (%2F) in an id is seen as such.
    size_t (*unescape)(void *cls, struct MHD_Connection *connection, char *s);
    /// Called with the request target as soon as the request line is read, before
    /// libmicrohttpd splits the query or unescapes anything; returns the request's context.
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection);
    void *uri_log_cls;
    /// Called when a connection is accepted and when it is closed (before its socket is).
    MHD_NotifyConnectionCallback notify_connection;
    void *notify_connection_cls;
    /// PEM text of the certificate and key; both NULL for plain HTTP.
    const char *tls_certificate;
    const char *tls_key;
};

/// Starts a daemon with `settings`; NULL when it cannot (the port is taken, bad TLS material).
static inline struct MHD_Daemon *evtool_mhd_start(const struct evtool_mhd_settings *s) {
    unsigned int flags = s->flags;
    if (s->tls_certificate != NULL && s->tls_key != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, s->handler, s->handler_cls,
            MHD_OPTION_SOCK_ADDR, s->address,
            MHD_OPTION_THREAD_POOL_SIZE, s->threads,
            MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory_limit,
            MHD_OPTION_LISTEN_BACKLOG_SIZE, s->listen_backlog,
            MHD_OPTION_NOTIFY_COMPLETED, s->completed, s->completed_cls,
            MHD_OPTION_UNESCAPE_CALLBACK, s->unescape, NULL,
            MHD_OPTION_URI_LOG_CALLBACK, s->uri_log, s->uri_log_cls,
            MHD_OPTION_NOTIFY_CONNECTION, s->notify_connection, s->notify_connection_cls,
            MHD_OPTION_HTTPS_MEM_CERT, s->tls_certificate,
            MHD_OPTION_HTTPS_MEM_KEY, s->tls_key,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, s->handler, s->handler_cls,
        MHD_OPTION_SOCK_ADDR, s->address,
        MHD_OPTION_THREAD_POOL_SIZE, s->threads,
        MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory_limit,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, s->listen_backlog,
        MHD_OPTION_NOTIFY_COMPLETED, s->completed, s->completed_cls,
        MHD_OPTION_UNESCAPE_CALLBACK, s->unescape, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, s->uri_log, s->uri_log_cls,
        MHD_OPTION_NOTIFY_CONNECTION, s->notify_connection, s->notify_connection_cls,
        MHD_OPTION_END);
}

/// The port the daemon listens on (useful after binding port 0), or 0.
static inline uint16_t evtool_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The number of open connections.
static inline unsigned int evtool_mhd_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// A connection's socket, or -1.
static inline int evtool_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// What the connection-notify callback set as the connection's context, or NULL.
static inline void *evtool_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

static inline ssize_t evtool_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t evtool_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
/// Whether this libmicrohttpd was built with TLS support.
static inline int evtool_mhd_has_tls(void) { return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES; }
/// A response whose body libmicrohttpd copies.
static inline struct MHD_Response *evtool_mhd_response_copying(size_t size, const void *bytes) {
    return MHD_create_response_from_buffer(size, (void *) bytes, MHD_RESPMEM_MUST_COPY);
}
#endif
