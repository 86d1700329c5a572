import CommandKit
import Core
import Engine
import Foundation
import RevisionStore
import RuleEngine
import Store
import Synchronization

/// Each feature set's memo of loads, with its kinds array, held here so that its storage stays
/// its own (never reused by another feature set's while the entry lives).
private let featureSetMemos = Mutex<[(kinds: [any DocumentKind], memo: RuleSetMemo)]>([])

/// Features put together: what the CLI, the service, the benchmarks and every test harness
/// build the engine from, so that all of them run the same engine.
public struct FeatureSet: Sendable {
    /// The features, in the order their consumers run and their routes and commands are listed.
    public let features: [any Feature]
    /// The engine's own rule kinds, then every feature's.
    public let ruleKinds: [RuleKind]
    public let documentKinds: [any DocumentKind]
    /// Every event type the app sends that some feature consumes, with that feature's name
    /// (the first feature to declare a type describes it).
    public let appEvents: [(feature: String, event: AppEvent)]
    /// The engine's effect types, then every feature's.
    public let effectTypes: EffectTypes
    /// The HTTP status of each rejection code: the engine's own, then every feature's.
    private let rejectionStatuses: [String: Int]
    /// The store's migrations: the core's, the served rule set's, then every feature's in order.
    public let schema: Schema

    public init(_ features: [any Feature]) {
        self.features = features
        ruleKinds = RuleKind.registry + features.flatMap(\.ruleKinds)
        var events: [(feature: String, event: AppEvent)] = []
        for feature in features {
            for event in feature.appEvents where !events.contains(where: { $0.event.type == event.type }) {
                events.append((feature.name, event))
            }
        }
        appEvents = events
        documentKinds =
            [LocaleDocumentKind(usedKeys: features.flatMap(\.texts))]
            + features.flatMap { $0.documentKinds(appEvents: events.map(\.event)) }
        effectTypes = EffectTypes(EffectTypes.engine.all + features.flatMap(\.effectTypes))
        rejectionStatuses = features.reduce(into: ["unknown_dog": 404, "conflict": 409, "storage_error": 503]) {
            statuses, feature in statuses.merge(feature.rejectionStatuses) { first, _ in first }
        }
        schema = Schema([RevisionSchema.migrations] + features.map(\.migrations))
    }

    /// A loader of `rulesDirectory` (and `pluginsDirectory`) that knows every feature's kinds;
    /// files loaded before by this feature set's loaders load again without compiling (see
    /// ``RuleSetMemo``).
    public func loader(rulesDirectory: String, pluginsDirectory: String?) -> RuleSetLoader {
        var loader = RuleSetLoader(
            rulesDirectory: rulesDirectory, pluginsDirectory: pluginsDirectory, kinds: documentKinds,
            ruleKinds: ruleKinds)
        loader.memo = memo
        return loader
    }

    /// The loads of this feature set's loaders, kept for loading the same files again (its
    /// kinds are the same for all of them). Found by the storage of `documentKinds`, which
    /// every copy of a feature set shares: not a stored property, whose adding changes the
    /// struct's size, which modules built against the old one (incremental builds do not
    /// rebuild them all) would copy wrongly.
    private var memo: RuleSetMemo {
        let kinds = documentKinds
        return featureSetMemos.withLock { entries in
            if let found = entries.first(where: { Self.sameStorage($0.kinds, kinds) }) { return found.memo }
            let memo = RuleSetMemo()
            entries.append((kinds, memo))
            if entries.count > 16 { entries.removeFirst() }
            return memo
        }
    }

    private static func sameStorage(_ a: [any DocumentKind], _ b: [any DocumentKind]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// The ingest consumers for `ruleSet`: registration and the `event_effects` rules, then each
    /// feature's (a later feature can count what an earlier one accepted).
    public func consumers(for ruleSet: RuleSet) -> [any EventConsumer] {
        Ingestor.defaultConsumers(for: ruleSet, effectTypes: effectTypes)
            + features.flatMap { $0.consumers(for: ruleSet) }
    }

    /// Sets up `evaluator` for use over `store` (every feature's preparation).
    public func prepare(_ evaluator: RuleEvaluator, store: any Store) {
        for feature in features { feature.prepare(evaluator, store: store) }
    }

    /// Sets up `evaluator` to read `reader` and write nothing.
    public func prepare(_ evaluator: RuleEvaluator, reader: (any StoreReader)?) {
        for feature in features { feature.prepare(evaluator, reader: reader) }
    }

    /// The one way to build the ingest path: `evaluator` prepared for `store`, every
    /// feature's consumers.
    public func makeIngestor(
        store: any Store, evaluator: RuleEvaluator, policy: IngestPolicy = IngestPolicy(),
        cores: Int = ProcessInfo.processInfo.activeProcessorCount, computesBeforeWriting: Bool = false
    ) -> Ingestor {
        prepare(evaluator, store: store)
        return Ingestor(
            store: store, evaluator: evaluator, consumers: consumers(for: evaluator.ruleSet), policy: policy,
            cores: cores, computesBeforeWriting: computesBeforeWriting)
    }

    /// The HTTP status of a refused event, by its rejection code (422 for any other).
    public func status(ofRejection code: String?) -> Int {
        code.flatMap { rejectionStatuses[$0] } ?? 422
    }

    /// Every feature's findings about changing `parent` into `candidate`.
    public func checkChange(from parent: RuleSet, to candidate: RuleSet) -> [Diagnostic] {
        features.flatMap { $0.checkChange(from: parent, to: candidate) }
    }

    /// Every feature's decisions for `dog`, one object per evaluator (see
    /// ``Feature/previewDecisions(dog:store:evaluators:now:)``).
    public func previewDecisions(dog: String, store: any StoreReader, evaluators: [RuleEvaluator], now: Double) throws
        -> [JSONObject]
    {
        var decisions: [JSONObject] = evaluators.map { _ in [:] }
        for feature in features {
            let found = try feature.previewDecisions(dog: dog, store: store, evaluators: evaluators, now: now)
            for (index, object) in found.enumerated() where index < decisions.count {
                for (key, value) in object { decisions[index][key] = value }
            }
        }
        return decisions
    }

    /// The service's OpenAPI document: `core` (the engine's own routes) with every feature's part.
    public func openAPI(core: JSON) throws(OpenAPIDocument.Failure) -> JSON {
        try OpenAPIDocument.merge(core: core, features: features)
    }

    public var routes: [FeatureRoute] { features.flatMap(\.routes) }
    public var commands: [any Command.Type] { features.flatMap(\.commands) }
    public var commandGroups: [String: String] {
        features.reduce(into: [:]) { groups, feature in groups.merge(feature.commandGroups) { first, _ in first } }
    }
    public var jobs: [FeatureJob] { features.flatMap(\.jobs) }

    /// The isolated job named `name`, of whichever feature brings it.
    public func isolatedJob(named name: String) -> IsolatedJob? {
        features.lazy.flatMap(\.isolatedJobs).first { $0.name == name }
    }
}
