import Foundation
import SQLiteStore
import Store

/// An ``SQLiteStore`` in a fresh temporary file, opened on first use with the tables of
/// ``schema``; the file is removed when released.
public final class TestDatabase {
    /// The store's file.
    public let file = TemporaryDatabaseFile()

    /// The store's full path.
    public var path: String { file.path }
    /// The migrations the store is made with: the core's, or a feature set's (`Features.all.schema`).
    public let schema: Schema

    /// The store, opened (and migrated) on first use. A store that cannot be opened stops the
    /// tests with the path and the reason.
    public private(set) lazy var store: SQLiteStore = {
        do {
            return try SQLiteStore(path: path, schema: schema)
        } catch {
            fatalError("cannot open a test store at \(path): \(error)")
        }
    }()

    /// A database whose store is not opened yet, made with `schema`'s migrations when it is.
    public init(schema: Schema) {
        self.schema = schema
    }

    /// The integer a query such as `SELECT count(*) FROM …` gives; -1 when it gives nothing.
    public func count(_ query: String) throws -> Int {
        Int(try store.connection.scalar(query) ?? -1)
    }

    /// The number of rows in `table`.
    public func count(table: String) throws -> Int {
        try count("SELECT count(*) FROM \(table)")
    }
}
