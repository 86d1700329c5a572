import FeatureKit
import Foundation
import RevisionStore
import RuleEngine
import Store

/// Loads candidate rule sets for one worker: snapshot the live files, load and compile them,
/// run every rule's tests; only a candidate that passes becomes a ``RulesGeneration``.
///
/// One load at a time per worker (file changes, SIGHUP and the admin endpoint may race).
/// While a candidate is validated, the worker's slot says so: if a test crashes the worker,
/// the supervisor marks that revision poisoned and the restarted worker does not try it again.
///
/// `@unchecked Sendable`: its only mutable state is guarded by `lock`.
final class RuleReloader: @unchecked Sendable {
    /// The features whose kinds the rules are loaded with and whose consumers serve them.
    let features: FeatureSet
    let snapshots: RuleSnapshots
    let slot: WorkerSlot?
    /// Budget of each inline test of a candidate.
    let testBudget: Duration
    /// The service's clock (the ingest path's time of receipt).
    let clock: @Sendable () -> Double
    private let lock = NSLock()

    init(
        features: FeatureSet, snapshots: RuleSnapshots, slot: WorkerSlot?, testBudget: Duration = .seconds(1),
        clock: @escaping @Sendable () -> Double
    ) {
        self.features = features
        self.snapshots = snapshots
        self.slot = slot
        self.testBudget = testBudget
        self.clock = clock
    }

    /// Loads what the worker serves: the store's active revision once one is published (unless
    /// `source` is the folders), else a snapshot of the live files. `serving` is the revision
    /// served now: the same one again is `unchanged` (unless `force`). The active revision is
    /// read through `reader`, a connection of the calling thread; the generation is built over
    /// `store`, the request thread's. With `cache` (the control thread's), unchanged rules are
    /// not compiled again, and the generation comes without programs: the request thread takes
    /// over its own for unchanged rules and compiles the rest.
    func loadServed(
        source: RulesSource, trigger: String, serving: String?, reader: any StoreReader, store: any Store,
        force: Bool = false, cache: ProgramCache? = nil
    ) -> (RulesGeneration?, ReloadReport) {
        lock.lock()
        defer { lock.unlock() }
        let started = ContinuousClock.now
        func refused(_ message: String) -> (RulesGeneration?, ReloadReport) {
            (
                nil,
                ReloadReport(
                    outcome: .refused, trigger: trigger, revision: nil, at: Date().timeIntervalSince1970,
                    seconds: (ContinuousClock.now - started).seconds, message: message)
            )
        }
        if source != .folder {
            let active: RevisionActivation?
            do {
                active = try reader.activeRevision()
            } catch {
                return refused("the active revision cannot be read from the store: \(error)")
            }
            if let active {
                return candidate(
                    trigger: trigger, serving: serving, store: store, force: force, cache: cache, started: started,
                    unchanged: "the active revision is served already", retry: "publish or activate another"
                ) { try snapshots.keep(try reader.ruleRevisionFiles(active.revision)) }
            }
        }
        return candidate(
            trigger: trigger, serving: serving, store: store, force: force, cache: cache, started: started,
            unchanged: "the files are the revision already served", retry: "change the rules to try again",
            refusingEmptyFiles: trigger != Self.startupTrigger
        ) { try snapshots.capture() }
    }

    /// Loads the snapshot `snapshot` makes, unless it is the revision served (`unchanged`) or
    /// one that crashed a worker (refused, saying to `retry`).
    private func candidate(
        trigger: String, serving: String?, store: any Store, force: Bool, cache: ProgramCache?,
        started: ContinuousClock.Instant, unchanged: String, retry: String, refusingEmptyFiles: Bool = false,
        _ snapshot: () throws -> RuleSnapshots.Snapshot
    ) -> (RulesGeneration?, ReloadReport) {
        func report(_ outcome: ReloadReport.Outcome, _ revision: String?, _ message: String) -> ReloadReport {
            ReloadReport(
                outcome: outcome, trigger: trigger, revision: revision, at: Date().timeIntervalSince1970,
                seconds: (ContinuousClock.now - started).seconds, message: message)
        }
        let candidate: RuleSnapshots.Snapshot
        do {
            candidate = try snapshot()
        } catch {
            return (nil, report(.refused, nil, "\(error)"))
        }
        if candidate.revision == serving, !force {
            return (nil, report(.unchanged, candidate.revision, unchanged))
        }
        if snapshots.poisoned.contains(candidate.revision) {
            return (
                nil,
                report(
                    .refused, candidate.revision,
                    "revision \(candidate.revision.prefix(12)) crashed a worker while it was tested; \(retry)")
            )
        }
        return load(
            candidate, trigger: trigger, store: store, started: started, cache: cache,
            refusingEmptyFiles: refusingEmptyFiles)
    }

    /// Loads and tests revision `revision` of the store ahead of its scheduled activation, so
    /// that at its time the worker only swaps it in (a load with tests takes seconds).
    func prepare(revision: String, reader: any StoreReader, store: any Store, cache: ProgramCache?)
        -> (RulesGeneration?, ReloadReport)
    {
        lock.lock()
        defer { lock.unlock() }
        return candidate(
            trigger: "scheduled activation", serving: nil, store: store, force: true, cache: cache,
            started: ContinuousClock.now, unchanged: "the scheduled revision is served already",
            retry: "schedule another"
        ) { try snapshots.keep(try reader.ruleRevisionFiles(revision)) }
    }

    /// Loads the last good snapshot (a worker starting while the live files are broken or
    /// poisoned). It is tried even when marked poisoned: it passed its tests before, and a
    /// poisoned state must never keep the service from starting.
    func loadLastGood(trigger: String, store: any Store) -> (RulesGeneration?, ReloadReport)? {
        lock.lock()
        defer { lock.unlock() }
        guard let snapshot = snapshots.lastGood else { return nil }
        return load(snapshot, trigger: trigger, store: store, started: ContinuousClock().now)
    }

    /// The trigger of a worker's first load.
    static let startupTrigger = "startup"

    /// Loads `snapshot`; with `refusingEmptyFiles` (live files read while the service runs), a
    /// rule set with an empty file is refused: it is one being written (an editor, or `>`,
    /// truncates it first), and serving it would drop its rules until the write ends. A
    /// published revision, or the files at startup, keep it the warning it is elsewhere.
    private func load(
        _ snapshot: RuleSnapshots.Snapshot, trigger: String, store: any Store, started: ContinuousClock.Instant,
        cache: ProgramCache? = nil, refusingEmptyFiles: Bool = false
    ) -> (RulesGeneration?, ReloadReport) {
        slot?.beginValidation(candidate: snapshot.revision)
        defer { slot?.endEvaluation() }
        var loader = features.loader(
            rulesDirectory: snapshot.rules, pluginsDirectory: snapshots.pluginsDirectory == nil ? nil : snapshot.plugins
        )
        loader.displayNames = (
            Self.display(snapshots.rulesDirectory), Self.display(snapshots.pluginsDirectory ?? "Plugins")
        )
        loader.programCache = cache
        let result = loader.load()
        var report = ReloadReport(
            outcome: .refused, trigger: trigger, revision: snapshot.revision, at: 0, seconds: 0, message: "")
        report.diagnostics = result.diagnostics
        func finish(_ outcome: ReloadReport.Outcome, _ message: String) -> ReloadReport {
            report.outcome = outcome
            report.message = message
            report.at = Date().timeIntervalSince1970
            report.seconds = (ContinuousClock().now - started).seconds
            return report
        }
        guard let ruleSet = result.ruleSet, let evaluator = result.evaluator else {
            let errors = result.diagnostics.filter { $0.severity == .error }
            let first = errors.first.map { ": \($0.location): \($0.message)" } ?? ""
            return (
                nil,
                finish(.refused, "refused: \(errors.count) error\(errors.count == 1 ? "" : "s") in the rules\(first)")
            )
        }
        if refusingEmptyFiles, let empty = result.diagnostics.first(where: { $0.code == "empty_file" }) {
            return (
                nil,
                finish(
                    .refused,
                    "refused: \(empty.location.file) holds nothing (still being written?); the rules served stay: save it whole, or delete it"
                )
            )
        }
        let outcomes = RuleTestRunner(evaluator: evaluator, timeout: testBudget).run()
        report.testsRun = outcomes.count
        report.failedTests = outcomes.filter { $0.status == .failed }
        if let first = report.failedTests.first {
            let count = report.failedTests.count
            return (
                nil,
                finish(
                    .refused,
                    "refused: \(count) failing test\(count == 1 ? "" : "s"), first \(first.fullName) at \(first.location)"
                )
            )
        }
        // Programs from the cache stay with this thread: the request thread gets an evaluator
        // of its own.
        let generation = RulesGeneration(
            ruleSet: ruleSet, evaluator: cache == nil ? evaluator : RuleEvaluator(ruleSet: ruleSet), store: store,
            snapshot: snapshot, features: features, clock: clock)
        snapshots.markGood(snapshot)
        return (
            generation,
            finish(
                .loaded,
                "loaded revision \(ruleSet.shortRevision): \(ruleSet.rules.count) rules, \(outcomes.count) tests passed"
                    + (cache.map { "; \($0.lastCompiled) programs compiled, \($0.lastReused) unchanged" } ?? "")
            )
        )
    }

    /// `./Rules/` → `Rules`, as diagnostics name files.
    static func display(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        while path.hasPrefix("./"), path.count > 2 { path.removeFirst(2) }
        return path
    }
}
