import Foundation

/// A path for an SQLite file under the system's temporary folder. Nothing is created; when
/// released, the file and its `-wal` and `-shm` companions are removed.
public final class TemporaryDatabaseFile: Sendable {
    /// The file's full path.
    public let path = NSTemporaryDirectory() + "journey-tests-\(UUID().uuidString).sqlite"

    /// A new, unused path.
    public init() {}

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
