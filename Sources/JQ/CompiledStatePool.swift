import CJQ
import Core
import Foundation

/// Compiled `jq_state`s of released programs, kept for the next program compiled from the same
/// text with the same constants.
///
/// libjq 1.6 relinks its builtins on every `jq_compile` (20–80 ms a program), so loading a rule
/// set costs about a second, and most of a revision's programs are the previous revision's
/// unchanged: a publish, a reload, a preview or a `journey` command run in-process again
/// compiles only what changed. A state is reused only when the wrapped text and constants are
/// equal and, for a program with `import`/`include`, the library's files too (by digest: a
/// library file may change under the same name, and a snapshot copy of the same files may sit
/// in another folder); it is handed to one program at a time, and `jq_start` resets it before
/// each evaluation. At most ``capacity`` idle states are kept; the oldest are torn down first.
final class CompiledStatePool: @unchecked Sendable {
    /// What makes two compilations the same.
    struct Key: Hashable {
        var wrappedSource: String
        var constants: JSONObject
        /// The digest of the library folder's files (``LibraryDigest``), for a program that reads
        /// them; nil for one that does not.
        var library: String? = nil
    }

    /// The process's pool.
    static let shared = CompiledStatePool(capacity: 512)

    /// How many idle states are kept at most.
    let capacity: Int
    private let lock = NSLock()
    private var idle: [Key: [OpaquePointer]] = [:]
    /// Keys in the order their states were returned, oldest first, one entry per idle state.
    private var returned: [Key] = []
    private var counts = Counts()

    /// How often a program found a state and how often it compiled.
    struct Counts: Equatable {
        var reused = 0
        var compiled = 0
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Counts since the process started.
    var statistics: Counts {
        lock.withLock { counts }
    }

    /// How many idle states compiled for `key` are kept.
    func idleCount(_ key: Key) -> Int {
        lock.withLock { idle[key]?.count ?? 0 }
    }

    /// An idle state compiled for `key`, now the caller's; nil when there is none.
    func take(_ key: Key) -> OpaquePointer? {
        lock.withLock {
            guard var states = idle[key], let state = states.popLast() else {
                counts.compiled += 1
                return nil
            }
            idle[key] = states.isEmpty ? nil : states
            if let index = returned.firstIndex(of: key) { returned.remove(at: index) }
            counts.reused += 1
            return state
        }
    }

    /// Keeps `state` (compiled for `key`, no longer used by anyone) for a later ``take(_:)``.
    func give(_ state: OpaquePointer, for key: Key) {
        var evicted: OpaquePointer?
        lock.withLock {
            idle[key, default: []].append(state)
            returned.append(key)
            if returned.count > capacity {
                let oldest = returned.removeFirst()
                evicted = idle[oldest]?.removeFirst()
                if idle[oldest]?.isEmpty == true { idle[oldest] = nil }
            }
        }
        if evicted != nil { jq_teardown(&evicted) }
    }
}
