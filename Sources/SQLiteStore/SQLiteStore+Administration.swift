import Foundation
import SQLite
import Store

/// Looking after the embedded store: its file, its structure and its change signal.
extension SQLiteStore: StoreAdministration, ChangeSignal {
    public var location: String { path }

    public func execute(_ script: String) throws {
        reads.forget()
        try connection.execute(script)
    }

    /// Every table (but SQLite's own), in the order they were created.
    public func tableNames() throws -> [String] {
        try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid") {
            $0.text(0) ?? ""
        }
    }

    /// The bytes of the file and its WAL.
    public func byteCount() throws -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0
            return total + size
        }
    }

    /// What `PRAGMA integrity_check` finds wrong with the file (nothing when it says `ok`).
    public func storageProblems() throws -> [String] {
        let lines = try rows("PRAGMA integrity_check") { $0.text(0) ?? "" }
        return lines == ["ok"] ? [] : lines
    }

    public func ping() throws {
        _ = try connection.scalar("SELECT 1")
    }

    /// `PRAGMA data_version`: it moves when another connection commits.
    public func externalVersion() throws -> Int64 {
        try connection.prepare("PRAGMA data_version").first { $0.integer(0) } ?? 0
    }
}
