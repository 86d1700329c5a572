/// Looking after a store, apart from what the engine reads and writes through it: its
/// schema, its size and its health (`journey db`, the service's readiness).
public protocol StoreAdministration: AnyObject {
    /// Where the store is, as `--db` named it (a file path for SQLite).
    var location: String { get }
    /// Applies the migrations not yet recorded; the versions applied, in order.
    @discardableResult
    func migrate() throws -> [Int]
    /// The newest migration applied.
    func schemaVersion() throws -> Int
    /// Counts and sizes, for `journey db stats`.
    func statistics() throws -> StoreStatistics
    /// `ok`, or what is wrong with the stored data.
    func integrityCheck() throws -> String
    /// Returns when the store answers a trivial query (readiness); throws otherwise.
    func ping() throws
}

/// "Something was committed elsewhere": another connection (another process, another
/// instance) wrote to the store since a number was read. Views derived from stored data are
/// kept until it changes.
public protocol ChangeSignal: AnyObject {
    /// A number that changes whenever another connection commits; commits through this
    /// connection do not change it.
    func externalVersion() throws -> Int64
}

/// A store as the CLI and the service open it: what the engine reads and writes, its
/// administration and its change signal.
public typealias StoreConnection = Store & StoreAdministration & ChangeSignal
