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

// After each commit in WAL mode: copy the log back into the database once it holds 1,000 pages
// (SQLite's own automatic checkpoint, which this hook replaces), and once it holds
// `restart_pages`, wait up to `wait_ms` for the readers to leave it so that the next writer
// starts it again from its beginning. Without that wait, processes writing by turns (the
// service's workers) always have a reader in the log, and it grows without bound: 450 MB in 8
// seconds of POST /v1/events with two workers. A wait that fails (a long reader) is tried again
// 1,000 pages later, not at every commit: meanwhile it holds up every writer.
typedef struct {
    int restart_pages;
    int wait_ms;
    int busy_timeout_ms;
    int next_attempt;
    int restart_attempts;
} journey_wal_checkpoints;

static int journey_sqlite3_wal_checkpoint(void *context, sqlite3 *db, const char *name, int pages) {
    journey_wal_checkpoints *state = (journey_wal_checkpoints *)context;
    if (pages < state->restart_pages) state->next_attempt = 0;
    if (pages < 1000) return SQLITE_OK;
    if (pages < state->restart_pages || pages < state->next_attempt) {
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, (int *)0, (int *)0);
        return SQLITE_OK;
    }
    state->restart_attempts += 1;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    sqlite3_busy_handler(db, journey_sqlite3_busy_wait, (void *)(intptr_t)state->wait_ms);
    int result;
    for (;;) {
        // Busy at once while another connection checkpoints (SQLite does not wait for that
        // lock); busy after the busy handler's wait while a reader stays.
        result = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_RESTART, (int *)0, (int *)0);
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
        if ((result & 0xff) != SQLITE_BUSY || elapsed_ms >= state->wait_ms) break;
        struct timespec pause = {0, 1000000L};
        nanosleep(&pause, NULL);
    }
    sqlite3_busy_handler(db, journey_sqlite3_busy_wait, (void *)(intptr_t)state->busy_timeout_ms);
    state->next_attempt = result == SQLITE_OK ? 0 : pages + 1000;
    return SQLITE_OK;
}

static inline void journey_sqlite3_set_wal_checkpoints(sqlite3 *db, journey_wal_checkpoints *state) {
    sqlite3_wal_hook(db, journey_sqlite3_wal_checkpoint, state);
}

// Debian's libsqlite3 keeps memory statistics (SQLITE_DEFAULT_MEMSTATUS=1): every allocation
// and free takes a global mutex to count itself. Nothing here reads them (no soft heap limit,
// no sqlite3_memory_used), so they are turned off. Only takes effect before SQLite initializes
// (the first connection opened); returns SQLITE_MISUSE after that.
static inline int journey_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// A statement whose LIKE has a bound pattern is compiled again each time the pattern changes
// (SQLite sets its "expires on rebind" mask so that the LIKE optimization may use the new
// prefix): ~60 k instructions a run. The query planner stability guarantee keeps one plan
// whatever is bound. Our LIKEs are case-insensitive over BINARY columns, which the LIKE
// optimization never serves, so no plan is lost.
static inline int journey_sqlite3_keep_plans(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_QPSG, 1, (int *)0);
}

// How many times `statement` was compiled again since it was prepared (schema changes, or a
// bound value that may change its plan).
static inline int journey_sqlite3_reprepare_count(sqlite3_stmt *statement) {
    return sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0);
}

// How many virtual machine operations `statement` ran since it was prepared: the work SQLite
// did for it, rows read included, whatever it returned.
static inline int journey_sqlite3_vm_steps(sqlite3_stmt *statement) {
    return sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0);
}

#endif
