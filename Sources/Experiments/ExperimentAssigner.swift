import Core
import JQ
import RuleEngine
import Store

/// Assigns subjects to experiments by GrowthBook's algorithm, keeps the first assignment
/// (sticky until the experiment's bucket version is raised), and writes `experiment_viewed`
/// once per subject and experiment when a variation is actually used.
///
/// Set as a ``RuleEvaluator``'s ``VariantChooser``, it picks the variant of every rule with an
/// `experiment:`. Not `Sendable`: it uses its store from the evaluator's thread.
public final class ExperimentAssigner: VariantChooser {
    public let catalog: ExperimentCatalog
    private let reader: (any StoreReader)?
    private let store: (any Store)?
    /// The subjects of the batch being written, until their assignments are read.
    private var batchSubjects: [ExperimentSubject] = []

    /// An assigner that keeps assignments and writes analytics in `store`.
    public init(catalog: ExperimentCatalog, store: any Store) {
        self.catalog = catalog
        self.reader = store
        self.store = store
    }

    /// An assigner that only reads kept assignments (from `reader`, when given) and never
    /// writes: for `journey assign` and `journey eval`.
    public init(catalog: ExperimentCatalog, readingFrom reader: (any StoreReader)?) {
        self.catalog = catalog
        self.reader = reader
        self.store = nil
    }

    /// The subject key assignments are kept under: `user_id:U` or `dog_id:D`.
    public static func subjectKey(attribute: String, value: String) -> String { "\(attribute):\(value)" }

    /// The assignment of `subject` to experiment `key` at `now`, from what is kept or by the
    /// hash; nothing is written.
    public func assignment(_ key: String, subject: ExperimentSubject, now: Double) throws -> Assignment {
        guard let experiment = catalog[key] else {
            return Assignment(experiment: key, reason: .unknownExperiment)
        }
        if let winner = experiment.winner {
            return Assignment(
                experiment: key, variation: winner, reason: .concluded, bucketVersion: experiment.bucketVersion)
        }
        guard let value = subject.attribute(experiment.hashAttribute), !value.isEmpty else {
            return Assignment(experiment: key, reason: .missingAttribute, bucketVersion: experiment.bucketVersion)
        }
        let hash = GrowthBook.hash(seed: experiment.seed, value: value, version: experiment.hashVersion)
        var result = Assignment(
            experiment: key, reason: .assigned, subjectValue: value, hashValue: hash,
            bucketVersion: experiment.bucketVersion)
        let ranges = experiment.ranges
        if let inactive = experiment.inactiveReason(at: now) {
            result.reason = inactive
            return result
        }
        let subjectKey = Self.subjectKey(attribute: experiment.hashAttribute, value: value)
        try keepBatchAssignments()
        if let kept = try reader?.assignment(subject: subjectKey, experiment: key) {
            if kept.bucketVersion >= experiment.bucketVersion,
                let index = experiment.variations.firstIndex(of: kept.variation)
            {
                result.variation = kept.variation
                result.reason = .sticky
                result.hashValue = kept.hashValue
                result.range = ranges[index]
                result.bucketVersion = kept.bucketVersion
                result.assignedAt = kept.assignedAt
                result.viewedAt = kept.viewedAt
                return result
            }
            result.reason = .reassigned
        }
        guard let hash, let index = GrowthBook.chooseVariation(hash, ranges: ranges) else {
            result.reason = .outsideCoverage
            return result
        }
        result.variation = experiment.variations[index]
        result.range = ranges[index]
        return result
    }

    /// Like ``assignment(_:subject:now:)``, and keeps the assignment and marks it used: a new
    /// (or re-) assignment is stored, and `experiment_viewed` is written the first time.
    public func use(_ key: String, subject: ExperimentSubject, now: Double) throws -> Assignment {
        let result = try assignment(key, subject: subject, now: now)
        guard let store, let experiment = catalog[key], let value = result.subjectValue else { return result }
        let subjectKey = Self.subjectKey(attribute: experiment.hashAttribute, value: value)
        switch result.reason {
        case .assigned, .reassigned:
            // A new (or replacing) assignment is used now, in the same write: nothing to ask.
            guard let variation = result.variation, let hash = result.hashValue else { return result }
            let saved = StoredAssignment(
                subject: subjectKey, experiment: key, userID: subject.userID, variation: variation,
                bucketVersion: experiment.bucketVersion, hashValue: hash, assignedAt: now, viewedAt: now)
            try store.saveAssignment(saved)
            // The row is now exactly this (the save sets every column): the next use asks nothing.
            store.keepAssignment(saved, subject: subjectKey, experiment: key)
            try viewed(key, experiment, result, variation: variation, user: subject.userID, at: now)
            return result
        case .outsideCoverage:
            // A kept assignment of a lower bucket version that the hash now leaves out.
            try store.removeAssignment(subject: subjectKey, experiment: key)
            return result
        case .sticky:
            // Already used: nothing to write (a view must not take SQLite's write lock), unless
            // this use happened earlier (its event arrived late): the first use is the earliest.
            if let viewed = result.viewedAt {
                if now < viewed {
                    try store.moveAssignmentUse(subject: subjectKey, experiment: key, userID: subject.userID, to: now)
                }
                return result
            }
        default:
            return result
        }
        if try store.markAssignmentViewed(subject: subjectKey, experiment: key, at: now),
            let variation = result.variation
        {
            try viewed(key, experiment, result, variation: variation, user: subject.userID, at: now)
        }
        return result
    }

    /// `experiment_viewed`, written the first time a subject's assignment is used (for a user).
    private func viewed(
        _ key: String, _ experiment: Experiment, _ result: Assignment, variation: String, user: String?, at now: Double
    ) throws {
        guard let store, let user else { return }
        try store.appendAnalytics(
            AnalyticsEvent(
                userID: user, name: "experiment_viewed", occurredAt: now,
                properties: [
                    "experiment": .string(key), "variation": .string(variation),
                    "bucket_version": .number(Double(experiment.bucketVersion)),
                    "hash_attribute": .string(experiment.hashAttribute),
                    "hash_value": result.hashValue.map(JSON.number) ?? .null,
                ]),
            event: nil)
    }

    // MARK: VariantChooser

    public func variation(of experiment: String, subject: ExperimentSubject, now: Double) throws -> String? {
        try use(experiment, subject: subject, now: now).variation
    }

    /// Remembers the batch's subjects: the first assignment the batch asks for reads theirs
    /// (``keepBatchAssignments()``). A batch that uses no experiment reads nothing.
    public func keepReads(for subjects: [ExperimentSubject]) {
        batchSubjects = subjects
    }

    /// Reads the kept assignments of the batch's subjects to every experiment without a winner
    /// in one statement, kept for the write transaction (nothing outside one), once.
    private func keepBatchAssignments() throws {
        guard !batchSubjects.isEmpty, let reader else { return }
        let subjects = batchSubjects
        batchSubjects = []
        let running = catalog.experiments.filter { $0.winner == nil }
        var keys: Set<String> = []
        for experiment in running {
            for subject in subjects {
                guard let value = subject.attribute(experiment.hashAttribute), !value.isEmpty else { continue }
                keys.insert(Self.subjectKey(attribute: experiment.hashAttribute, value: value))
            }
        }
        try reader.keepAssignments(subjects: Array(keys), experiments: running.map(\.key))
    }

    public func explanation(of experiment: String, subject: ExperimentSubject, now: Double) throws -> String? {
        let assignment = try assignment(experiment, subject: subject, now: now)
        return
            "\(assignment.variation ?? "default") (\(assignment.reason.rawValue), hash \(assignment.hashValue.map { String($0) } ?? "-"))"
    }
}
