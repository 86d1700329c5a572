import Core
import Foundation
import SQLite
import Store

/// The embedded store: one SQLite file (`journey.sqlite` unless told otherwise), in WAL mode.
/// It provides transactions, savepoints and the shared SQL over one connection; the rows are
/// the shared SQL's (``Store``).
///
/// Not `Sendable`: it owns a connection. One owner (the ingest path, a request handler)
/// uses it at a time.
public final class SQLiteStore: Store {
    public let connection: Connection
    public var path: String { connection.path }
    public let derivedCache = DerivedCache()
    public let reads = TransactionReads()
    public var transactionReads: TransactionReads? { reads }
    public let schema: Schema

    /// The default file name in the working directory.
    public static let defaultPath = "journey.sqlite"

    /// Opens (creating if needed) the database at `path` and brings it up to `schema` unless
    /// `migrate` is false.
    public init(path: String = SQLiteStore.defaultPath, schema: Schema, migrate: Bool = true) throws {
        connection = try Connection(path: path)
        self.schema = schema
        if migrate { try self.migrate() }
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        reads.begin()
        defer { reads.end() }
        do {
            return try connection.transaction(body)
        } catch {
            derivedCache.removeAll()
            throw error
        }
    }

    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        do {
            return try connection.savepoint("event", body)
        } catch {
            derivedCache.removeAll()
            reads.forget()
            throw error
        }
    }

    /// Binds NULL to the row id (SQLite assigns the next one) and reads the one assigned.
    public func insertRow(into table: String, _ sql: String, _ values: [SQLValue]) throws -> Int64 {
        reads.note(sql, values, leadingID: true)
        try prepared(sql, values, after: .null).runBound()
        return connection.lastInsertedRowID
    }

    /// The dog's latest event's row id (0 for none): one writer at a time hands row ids out in
    /// commit order, so a larger one always commits later.
    public func dataVersion(dog: String) throws -> Int64 {
        try connection.prepare("SELECT id FROM events WHERE dog_id = ? ORDER BY id DESC LIMIT 1")
            .first([.text(dog)]) { $0.integer(0) } ?? 0
    }
}
