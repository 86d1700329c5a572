// libsqlite3 (Debian's libsqlite3-dev, pkg-config sqlite3).
#ifndef JOURNEY_CSQLITE_SHIM_H
#define JOURNEY_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import:
// these bind text and blobs that SQLite copies before the call returns.
static inline int journey_sqlite3_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}

static inline int journey_sqlite3_bind_blob_copy(sqlite3_stmt *statement, int index, const void *data, int bytes) {
    return sqlite3_bind_blob(statement, index, data, bytes, SQLITE_TRANSIENT);
}

#endif
