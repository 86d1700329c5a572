import PostgresStore
import SQLiteStore
import Store

extension StoreLocation {
    /// Opens the store here, bringing it up to `schema` unless `migrate` is false: the one
    /// place that turns a location into a backend.
    public func open(schema: Schema, migrate: Bool = true) throws -> any StoreConnection {
        switch backend {
        case .sqlite(let path):
            return try SQLiteStore(path: path, schema: schema, migrate: migrate)
        case .postgres(let url):
            return try PostgresStore(url: url, schema: schema, migrate: migrate)
        }
    }
}
