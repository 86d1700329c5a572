#ifndef JOURNEY_CMICROHTTPD_SHIM_H
#define JOURNEY_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// MHD_start_daemon is variadic, which Swift cannot call: this wrapper fixes the options the
/// Journey adapter uses. The daemon serves an already listening socket (`listen_fd`, owned by
/// the caller: a supervisor process may share it between workers).
static inline struct MHD_Daemon *journey_mhd_start(
    unsigned int flags, int listen_fd, unsigned int connection_timeout_seconds,
    size_t connection_memory_limit, unsigned int connection_limit,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context)
{
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
}

/// The number of open connections of `daemon` (MHD_get_daemon_info returns a union pointer).
static inline unsigned int journey_mhd_connection_count(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

#endif
