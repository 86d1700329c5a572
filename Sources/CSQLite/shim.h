// libsqlite3 (Debian's libsqlite3-dev, pkg-config sqlite3).
#ifndef JOURNEY_CSQLITE_SHIM_H
#define JOURNEY_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <stdint.h>
#include <time.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import:
// these bind text and blobs that SQLite copies before the call returns.
static inline int journey_sqlite3_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}

static inline int journey_sqlite3_bind_blob_copy(sqlite3_stmt *statement, int index, const void *data, int bytes) {
    return sqlite3_bind_blob(statement, index, data, bytes, SQLITE_TRANSIENT);
}

// While another connection (another worker process) holds the write lock, wait in short steps:
// 100 µs for the first 10 ms, then 1 ms, up to the timeout (milliseconds, in `context`).
// SQLite's own busy timeout sleeps up to 100 ms at a time, which makes writers that contend
// for a lock held a millisecond or two wait for tens of milliseconds.
static int journey_sqlite3_busy_wait(void *context, int count) {
    long timeout_us = (long)(intptr_t)context * 1000L;
    long waited_us = count < 100 ? (long)count * 100L : 10000L + (long)(count - 100) * 1000L;
    if (waited_us >= timeout_us) return 0;
    struct timespec pause = {0, count < 100 ? 100000L : 1000000L};
    nanosleep(&pause, NULL);
    return 1;
}

static inline int journey_sqlite3_set_busy_wait(sqlite3 *db, int timeout_ms) {
    return sqlite3_busy_handler(db, journey_sqlite3_busy_wait, (void *)(intptr_t)timeout_ms);
}

// Debian's libsqlite3 keeps memory statistics (SQLITE_DEFAULT_MEMSTATUS=1): every allocation
// and free takes a global mutex to count itself. Nothing here reads them (no soft heap limit,
// no sqlite3_memory_used), so they are turned off. Only takes effect before SQLite initializes
// (the first connection opened); returns SQLITE_MISUSE after that.
static inline int journey_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// PostgreSQL's string_agg(value, separator), which SQLite has only from 3.44 (Debian 12 ships
// 3.40), so that the shared SQL of the stores can aggregate text in the engine on both: the
// non-NULL values joined by the separator, in the order the rows come; NULL without any.
static void journey_sqlite3_string_agg_step(sqlite3_context *context, int count, sqlite3_value **values) {
    (void)count;
    if (sqlite3_value_type(values[0]) == SQLITE_NULL) return;
    sqlite3_str **text = (sqlite3_str **)sqlite3_aggregate_context(context, (int)sizeof(sqlite3_str *));
    if (!text) {
        sqlite3_result_error_nomem(context);
        return;
    }
    if (!*text) {
        *text = sqlite3_str_new(sqlite3_context_db_handle(context));
    } else if (sqlite3_value_type(values[1]) != SQLITE_NULL) {
        const char *separator = (const char *)sqlite3_value_text(values[1]);
        if (separator) sqlite3_str_append(*text, separator, sqlite3_value_bytes(values[1]));
    }
    const char *value = (const char *)sqlite3_value_text(values[0]);
    if (value) sqlite3_str_append(*text, value, sqlite3_value_bytes(values[0]));
}

// Called once per group (also for a statement reset before its end): frees what the steps built.
static void journey_sqlite3_string_agg_final(sqlite3_context *context) {
    sqlite3_str **text = (sqlite3_str **)sqlite3_aggregate_context(context, 0);
    if (!text || !*text) {
        sqlite3_result_null(context);
        return;
    }
    int error = sqlite3_str_errcode(*text);
    int length = sqlite3_str_length(*text);
    char *joined = sqlite3_str_finish(*text);  // NULL for an empty string
    *text = NULL;
    if (error == SQLITE_NOMEM) {
        sqlite3_free(joined);
        sqlite3_result_error_nomem(context);
    } else if (error != SQLITE_OK) {
        sqlite3_free(joined);
        sqlite3_result_error_toobig(context);
    } else if (!joined) {
        sqlite3_result_text(context, "", 0, SQLITE_STATIC);
    } else {
        sqlite3_result_text(context, joined, length, sqlite3_free);
    }
}

static inline int journey_sqlite3_add_string_agg(sqlite3 *db) {
    return sqlite3_create_function_v2(
        db, "string_agg", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, journey_sqlite3_string_agg_step,
        journey_sqlite3_string_agg_final, NULL);
}

#endif
