import Foundation
import Postgres
import PostgresStore
import Store
import StoreBackends

/// A fresh store on one backend, migrated to a schema: `sqlite` (a temporary file) or `postgres`
/// (a schema of its own on the server `JOURNEY_TEST_POSTGRES_URL` names, dropped when released).
public final class TestStore: CustomStringConvertible, @unchecked Sendable {
    public let name: String
    /// Where another connection to the same store connects (`--db`).
    public let location: String
    public let store: any StoreConnection
    /// The migrations it is made with.
    public let migrations: Schema
    private let file: TestDatabase?
    private let schema: String?

    /// The store made with `schema`'s migrations (the core's, or a feature set's:
    /// `Features.all.schema`). `prepare`, given the store's location (a file path, or a URL naming
    /// a schema of its own) before the store is opened and migrated, can build an older one there.
    public init(_ name: String, schema migrations: Schema, before prepare: (String) throws -> Void = { _ in }) throws {
        self.name = name
        self.migrations = migrations
        switch name {
        case "sqlite":
            let file = TestDatabase(schema: migrations)
            self.file = file
            schema = nil
            location = file.path
            try prepare(location)
            store = file.store
        default:
            guard let url = Self.postgresURL else {
                throw PostgresError(sqlState: nil, message: "JOURNEY_TEST_POSTGRES_URL is not set")
            }
            let schema = "store_\(UUID().uuidString.prefix(8).lowercased())"
            try PostgresConnection(url: url).execute("CREATE SCHEMA \(schema)")
            self.schema = schema
            file = nil
            location = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
            try prepare(location)
            store = try PostgresStore(url: location, schema: migrations)
        }
    }

    deinit {
        if let schema, let url = Self.postgresURL {
            try? PostgresConnection(url: url).execute(
                "SET client_min_messages = warning; DROP SCHEMA \(schema) CASCADE")
        }
    }

    /// Another connection to the same store, with its schema (or `schema`), migrated unless
    /// `migrate` is false.
    public func connect(schema: Schema? = nil, migrate: Bool = true) throws -> any StoreConnection {
        try StoreLocation(location).open(schema: schema ?? migrations, migrate: migrate)
    }

    public var description: String { name }

    public static let postgresURL = ProcessInfo.processInfo.environment["JOURNEY_TEST_POSTGRES_URL"]
    /// The backends to run on: SQLite always, PostgreSQL when a server is named.
    public static var names: [String] { ["sqlite"] + (postgresURL == nil ? [] : ["postgres"]) }
}
