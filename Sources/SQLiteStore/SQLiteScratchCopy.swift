import Foundation
import SQLite
import Store

extension SQLiteStore: ScratchCopying {
    public func scratchCopy(before since: Double) throws -> ScratchStore {
        let copy = try vacuumCopy()
        try copy.rollBack(from: since)
        return Self.scratch(copy)
    }

    /// `store` as a scratch copy: its files are deleted when it is released (the connection
    /// closes with the store; an unlinked file lives until then).
    static func scratch(_ store: SQLiteStore) -> ScratchStore {
        let path = store.path
        return ScratchStore(
            store: store, copy: { scratch(try store.vacuumCopy()) },
            remove: {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            })
    }

    /// A consistent copy of the database in a new temporary file, opened.
    func vacuumCopy() throws -> SQLiteStore {
        let path = NSTemporaryDirectory() + "/journey-scratch-\(UUID().uuidString).sqlite"
        try connection.execute("VACUUM INTO '\(path.replacingOccurrences(of: "'", with: "''"))'")
        return try SQLiteStore(path: path, schema: schema, migrate: false)
    }

    /// Removes the events from `since` on and everything they stored, found by the schema:
    /// every table with a column referencing `events` loses the rows naming such an event, and
    /// dogs registered by one go (with what cascades from them). The events themselves go last
    /// with foreign keys off: nothing names them any more, and checking every table for each
    /// of them (the `event` columns have no index) would cost a scan per event.
    func rollBack(from since: Double) throws {
        try transaction {
            try connection.run(
                "CREATE TEMP TABLE rolled_back AS SELECT id FROM events WHERE occurred_at >= ?", [.real(since)])
            let tables = try rows("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(0) ?? "" }
            for table in tables where table != "events" {
                let columns = try rows("SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?)", [.text(table)]) {
                    (column: $0.text(0) ?? "", target: $0.text(1) ?? "")
                }
                for (column, target) in columns where target == "events" {
                    try connection.execute(
                        "DELETE FROM \"\(table)\" WHERE \"\(column)\" IN (SELECT id FROM temp.rolled_back)")
                }
            }
            try connection.run(
                """
                DELETE FROM dogs WHERE dog_id IN (
                    SELECT dog_id FROM events WHERE type = 'dog_registered' AND occurred_at >= ?)
                """, [.real(since)])
        }
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { try? connection.execute("PRAGMA foreign_keys = ON") }
        try transaction {
            try connection.execute("DELETE FROM events WHERE id IN (SELECT id FROM temp.rolled_back)")
            try connection.execute("DROP TABLE temp.rolled_back")
        }
    }
}
