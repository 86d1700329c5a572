import Synchronization

/// Rule sets loaded before, kept by what they were loaded from, so that loading the same files
/// again (every `journey` command run in-process, each test of a suite, each worker of a
/// process) skips the compile pass: libjq 1.6 compiles a program in tens of milliseconds,
/// about a second for the bundled rules.
///
/// Only loads without errors are kept. A load is the same when the files read (their paths
/// and bytes: the revision), how messages name the folders, whether plugins were read and the
/// files skipped for their names are; the loaders sharing a memo must have the same document
/// and rule kinds (a ``FeatureSet`` holds one memo for its loaders). What a kept load gives is
/// the rule set and diagnostics the first load gave, moved to the new folder (its `lib/`, its
/// owner), with an evaluator that compiles each program the first time it is needed (reusing
/// released states of the same program, see `CompiledStatePool`).
///
/// `Sendable`: the kept loads are behind a mutex; concurrent loads of the same files may both
/// compile (the first to finish is kept).
public final class RuleSetMemo: Sendable {
    /// What makes two loads the same, besides the kinds (the memo's owner's).
    struct Key: Hashable {
        var revision: String
        var rulesDisplay: String
        var pluginsDisplay: String?
        var invalidNames: [String]
    }

    private struct Kept {
        var ruleSet: RuleSet
        var diagnostics: [Diagnostic]
    }

    /// How many loads are kept at most: the oldest used is forgotten first.
    let capacity: Int
    private let kept = Mutex<[(key: Key, load: Kept)]>([])
    private let counts = Mutex<(hits: Int, misses: Int)>((0, 0))

    public init(capacity: Int = 8) {
        self.capacity = capacity
    }

    /// How many loads were found kept and how many were not.
    public var statistics: (hits: Int, misses: Int) { counts.withLock { $0 } }

    /// The load kept for `key`, moved to `libraryDirectory` and `folderOwner`.
    func find(_ key: Key, libraryDirectory: String, folderOwner: (any AnyObject & Sendable)?, loadedAt: Double)
        -> (RuleSet, [Diagnostic])?
    {
        let found = kept.withLock { entries -> Kept? in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.load
        }
        counts.withLock { found == nil ? ($0.misses += 1) : ($0.hits += 1) }
        guard let found else { return nil }
        let ruleSet = found.ruleSet.relocated(
            libraryDirectory: libraryDirectory, loadedAt: loadedAt, folderOwner: folderOwner)
        return (ruleSet, found.diagnostics)
    }

    /// Keeps a load without errors (without its folder's owner: the memo must not keep a
    /// temporary folder alive).
    func keep(_ key: Key, ruleSet: RuleSet, diagnostics: [Diagnostic]) {
        let load = Kept(
            ruleSet: ruleSet.relocated(
                libraryDirectory: ruleSet.libraryDirectory, loadedAt: ruleSet.loadedAt, folderOwner: nil),
            diagnostics: diagnostics)
        kept.withLock { entries in
            entries.removeAll { $0.key == key }
            entries.append((key, load))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }
}
