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
    /// Starts listening on `channel` for ``Store/notify(_:)`` from other connections; the
    /// descriptor to wait on, or nil where there is nothing to wait on (SQLite: poll instead).
    func listen(_ channel: String) throws -> Int32?
    /// How many notifications arrived since the last call (without waiting); 0 without any.
    func drainNotifications() -> Int
    /// The descriptor to wait on for notifications now (it changes when a connection is
    /// opened again), or nil.
    var notificationDescriptor: Int32? { get }
}

extension ChangeSignal {
    public func listen(_ channel: String) throws -> Int32? { nil }
    public func drainNotifications() -> Int { 0 }
    public var notificationDescriptor: Int32? { nil }
}

/// A store as the CLI and the service open it: what the engine reads and writes, its
/// administration and its change signal.
public typealias StoreConnection = Store & StoreAdministration & ChangeSignal
