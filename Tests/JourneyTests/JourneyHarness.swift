import Core
import Engine
import FeatureKit
import Features
import Foundation
import JQ
import Journey
import RuleEngine
import SQLiteStore
import Store
import TestSupport

/// A store, the bundled rules with the Dog Journey, and an ingestor at a fixed clock.
final class JourneyHarness {
    private let file = TemporaryDatabaseFile()
    var path: String { file.path }
    let store: SQLiteStore
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    var clock: Double
    private var counter = 0
    /// The events accepted so far, in the order they were sent (their time order).
    private(set) var accepted: [JSON] = []

    init(rules: String = Repository.rules, plugins: String = Repository.plugins, now: String)
        throws
    {
        if rules == Repository.rules, plugins == Repository.plugins {
            evaluator = try Bundled.evaluator()
        } else {
            let loaded = Features.all.loader(rulesDirectory: rules, pluginsDirectory: plugins).load()
            guard let evaluator = loaded.evaluator else {
                throw HarnessError("rules do not load: \(loaded.diagnostics)")
            }
            self.evaluator = evaluator
        }
        store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        clock = Timestamp.parse(now)!
        received = TestClock(clock)
        ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: received.reading), cores: 1)
    }

    /// The ingestor's clock: when events are received (a second after they happen).
    private let received: TestClock

    /// Ingests one event at the current clock; the clock moves on a minute.
    @discardableResult
    func send(_ type: String, dog: String = "miso", user: String = "owner", _ payload: JSONObject = [:]) -> IngestResult
    {
        ingest(nextEvent(type, dog: dog, user: user, payload))
    }

    /// Ingests events of `miso`'s owner in one batch (one transaction), a minute apart.
    func sendBatch(_ events: [(type: String, payload: JSONObject)]) -> [IngestResult] {
        let batch = events.map { nextEvent($0.type, dog: "miso", user: "owner", $0.payload) }
        received.now = clock + 1
        let results = ingestor.ingest(batch)
        for (event, result) in zip(batch, results) where result.status == .accepted { accepted.append(event) }
        return results
    }

    /// The next event at the clock moved on a minute.
    private func nextEvent(_ type: String, dog: String, user: String, _ payload: JSONObject) -> JSON {
        counter += 1
        clock += 60
        return [
            "event_id": .string("ev-\(counter)"), "user_id": .string(user), "type": .string(type),
            "occurred_at": .string(Timestamp.format(clock)), "dog_id": .string(dog), "payload": .object(payload),
        ]
    }

    func ingest(_ event: JSON) -> IngestResult {
        received.now = clock + 1
        let result = ingestor.ingest([event])[0]
        if result.status == .accepted { accepted.append(event) }
        return result
    }

    var views: JourneyViews { JourneyViews(store: store, evaluator: evaluator, now: clock) }
    /// The views in `locale`, as a request asking for it reads them.
    func views(in locale: String) -> JourneyViews {
        let texts = RequestTexts.choose(profile: nil, acceptLanguage: locale, catalog: evaluator.ruleSet.texts)
        return JourneyViews(store: store, evaluator: evaluator, now: clock, texts: texts)
    }

    /// The views written in `locale`, as a request in it gets them.
    func views(locale: String) -> JourneyViews {
        JourneyViews(store: store, evaluator: evaluator, now: clock, texts: texts(locale))
    }

    /// The texts of `locale` of the bundled rules.
    func texts(_ locale: String) -> RequestTexts {
        RequestTexts(locale: locale, source: "test", catalog: evaluator.ruleSet.texts)
    }

    /// `json` with its texts kept as keys written in `locale`, as the app's answer shows them.
    func rendered(_ json: JSON?, _ locale: String) -> JSON? {
        json.map { DeferredText.rendered($0, texts: texts(locale)) }
    }

    func count(_ sql: String) throws -> Int {
        Int(try store.connection.scalar(sql) ?? -1)
    }
}

/// The bundled rules and plugins with every feature, loaded once per process: a load compiles
/// every program (about a second of CPU in a debug build, libjq's), and dozens of tests start
/// from the same rules. Each gets an evaluator of its own (an evaluator belongs to one thread;
/// the rule set is shared), which compiles what it evaluates. Loading itself is tested by
/// ``BundledRulesTests``.
enum Bundled {
    static let load: (ruleSet: RuleSet?, problems: String) = {
        let result = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
        return (result.ruleSet, result.diagnostics.map(\.description).joined(separator: "\n"))
    }()

    /// A new evaluator of the bundled rules.
    static func evaluator() throws -> RuleEvaluator {
        guard let ruleSet = load.ruleSet else { throw HarnessError("the bundled rules do not load: \(load.problems)") }
        return RuleEvaluator(ruleSet: ruleSet)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
