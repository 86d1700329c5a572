import Foundation
import SQLite
import Store

/// Looking after the embedded store: its file, its structure and its change signal.
extension SQLiteStore: StoreAdministration, ChangeSignal {
    public var location: String { path }

    public func schemaVersion() throws -> Int {
        try connection.schemaVersion()
    }

    /// Row counts of every table (in the order they were created) and the bytes of the file
    /// and its WAL.
    public func statistics() throws -> StoreStatistics {
        var names: [String] = []
        try connection.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
        .query { row in names.append(row.text(0) ?? "") }
        var tables: [(String, Int)] = []
        for name in names {
            tables.append((name, Int(try connection.scalar("SELECT count(*) FROM \"\(name)\"") ?? 0)))
        }
        let bytes = ["", "-wal"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0
            return total + size
        }
        return StoreStatistics(path: path, schemaVersion: try connection.schemaVersion(), tables: tables, bytes: bytes)
    }

    /// `PRAGMA integrity_check`: `ok`, or what is wrong.
    public func integrityCheck() throws -> String {
        var lines: [String] = []
        try connection.prepare("PRAGMA integrity_check").query { lines.append($0.text(0) ?? "") }
        return lines.joined(separator: "\n")
    }

    public func ping() throws {
        _ = try connection.scalar("SELECT 1")
    }

    /// `PRAGMA data_version`: it moves when another connection commits.
    public func externalVersion() throws -> Int64 {
        try connection.prepare("PRAGMA data_version").first { $0.integer(0) } ?? 0
    }
}
