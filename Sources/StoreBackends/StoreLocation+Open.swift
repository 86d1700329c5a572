import PostgresStore
import SQLiteStore
import Store

extension StoreLocation {
    /// Opens the store here, bringing its schema up to date unless `migrate` is false: the
    /// one place that turns a location into a backend.
    public func open(migrate: Bool = true) throws -> any StoreConnection {
        switch backend {
        case .sqlite(let path):
            return try SQLiteStore(path: path, migrate: migrate)
        case .postgres(let url):
            return try PostgresStore(url: url, migrate: migrate)
        }
    }
}
