import Synchronization

/// Text written on one thread and read on another: a worker's answer, a process's stderr,
/// failures collected under load.
public final class LockedText: Sendable {
    private let value = Mutex("")

    /// Empty text.
    public init() {}

    /// The text so far.
    public var text: String { value.withLock { $0 } }

    /// Replaces the text.
    public func set(_ text: String) { value.withLock { $0 = text } }

    /// Adds `text` at the end.
    public func append(_ text: String) { value.withLock { $0 += text } }
}
