#ifndef JOURNEY_CMICROHTTPD_SHIM_H
#define JOURNEY_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

static inline int journey_hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Percent-decodes the path and query values in place, like libmicrohttpd's own decoder, but
/// turns `%00` into byte 0xFF (never valid UTF-8) instead of a NUL that would silently cut the
/// C string short: such a path or value is then refused as invalid instead of matching another
/// route.
static inline size_t journey_unescape(void *context, struct MHD_Connection *connection, char *text)
{
    (void)context;
    (void)connection;
    char *read = text;
    char *write = text;
    while (*read != '\0') {
        int high, low;
        if (read[0] == '%' && (high = journey_hex_value(read[1])) >= 0 && (low = journey_hex_value(read[2])) >= 0) {
            int value = high * 16 + low;
            *write++ = value == 0 ? (char)0xFF : (char)value;
            read += 3;
        } else {
            *write++ = *read++;
        }
    }
    *write = '\0';
    return (size_t)(write - text);
}

/// MHD_start_daemon is variadic, which Swift cannot call: this wrapper fixes the options the
/// Journey adapter uses. The daemon serves an already listening socket (`listen_fd`, owned by
/// the caller: a supervisor process may share it between workers). `per_address_limit` is
/// the most connections one client address may hold (0: no limit); `notify` is told when a
/// connection starts and when it is closed.
static inline struct MHD_Daemon *journey_mhd_start(
    unsigned int flags, int listen_fd, unsigned int connection_timeout_seconds,
    size_t connection_memory_limit, unsigned int connection_limit, unsigned int per_address_limit,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    MHD_NotifyConnectionCallback notify, void *notify_context)
{
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
        MHD_OPTION_UNESCAPE_CALLBACK, journey_unescape, NULL,
        MHD_OPTION_END);
}

/// The socket of `connection` (MHD_get_connection_info is variadic); -1 when unknown.
static inline int journey_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/// Whether a header value points exactly past its name's end, colon and blanks, in the request
/// as it was read: what libmicrohttpd leaves for a header on one line. libmicrohttpd 0.9.75
/// accepts a header continued on the next line (obs-fold, a line that starts with a space or a
/// tab) and glues the continuation onto the header's *name* in place, or into a copy, so the
/// value no longer starts where the name ends (`Transfer-Encoding:` + ` chunked` is read as a
/// header named `Transfer-Encodingchunked`, hiding a Transfer-Encoding). It keeps no raw
/// header lines to look at, so that is how a fold shows. Only memory between the two
/// pointers, both in the connection's pool, is read.
static inline enum MHD_Result journey_mhd_visit_header(
    void *context, enum MHD_ValueKind kind, const char *name, const char *value)
{
    (void)kind;
    int *folded = (int *)context;
    if (name == NULL || value == NULL) return MHD_YES;
    const char *after = name + strlen(name) + 1;
    if (value < after || value - after > 65536) {
        *folded = 1;
        return MHD_NO;
    }
    for (const char *c = after; c < value; c++) {
        if (*c != ' ' && *c != '\t') {
            *folded = 1;
            return MHD_NO;
        }
    }
    return MHD_YES;
}

/// Whether a header of the request on `connection` was folded onto several lines (see
/// `journey_mhd_visit_header`): RFC 9112 §5.2 has such a request refused with 400.
static inline int journey_mhd_has_folded_header(struct MHD_Connection *connection)
{
    int folded = 0;
    MHD_get_connection_values(connection, MHD_HEADER_KIND, journey_mhd_visit_header, &folded);
    return folded;
}

/// The number of open connections of `daemon` (MHD_get_daemon_info returns a union pointer).
static inline unsigned int journey_mhd_connection_count(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

#endif
