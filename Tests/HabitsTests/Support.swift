import Core
import Engine
import FeatureKit
import Features
import Foundation
import JQ
import RuleEngine
import SQLiteStore
import Store
import TestSupport
import Testing

/// The bundled rules with every feature, loaded once per process.
enum Bundled {
    static let load: (ruleSet: RuleSet?, problems: String) = {
        let result = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()
        return (result.ruleSet, result.diagnostics.map(\.description).joined(separator: "\n"))
    }()
}

/// A fresh SQLite store, the bundled rules and every consumer; each event is received a
/// minute after it happened.
final class HabitsHarness {
    private let file = TemporaryDatabaseFile()
    let store: SQLiteStore
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    private let clock = TestClock()
    private var counter = 0

    init() throws {
        store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        evaluator = try #require(Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
        ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: clock.reading), cores: 1)
    }

    /// The bundled texts in `locale`, as a request would choose them.
    func texts(_ locale: String) -> RequestTexts {
        RequestTexts(locale: locale, source: "profile", catalog: evaluator.ruleSet.texts)
    }

    /// Ingests one event of `user`, `at` an RFC 3339 time with its offset.
    @discardableResult
    func send(_ user: String, _ type: String, _ payload: JSONObject, at: String) -> IngestResult {
        counter += 1
        clock.now = (Timestamp.parse(at) ?? 0) + 60
        let event: JSON = .object([
            "event_id": .string("h\(counter)"), "user_id": .string(user), "type": .string(type),
            "occurred_at": .string(at), "payload": .object(payload),
        ])
        return ingestor.ingest([event])[0]
    }
}
