import Core
import Engine
import Features
import Foundation
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

/// A rules directory of its own: the files given, removed when released.
final class RulesFolder {
    private let directory: TemporaryDirectory
    var path: String { directory.path }

    init(_ files: [String: String]) {
        do {
            directory = try TemporaryDirectory(files)
        } catch {
            fatalError("cannot write the rules folder: \(error)")
        }
    }

    /// Loads the folder with every feature's document kinds.
    func load() -> RuleSetLoader.Result {
        Features.all.loader(rulesDirectory: path, pluginsDirectory: nil).load()
    }

    /// The loaded rule set's evaluator; records an issue with the diagnostics when it does not load.
    func evaluator() -> RuleEvaluator? {
        let result = load()
        if result.evaluator == nil {
            Issue.record("the rules do not load: \(result.diagnostics.map(\.description).joined(separator: "\n"))")
        }
        return result.evaluator
    }
}

/// An ingest path over a store with the rules of `evaluator`, every feature's consumers and
/// the experiments attached; the clock is settable.
final class Engine {
    let database: TestDatabase
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    let clock = TestClock(at: "2026-11-29T12:00:00Z")

    /// An engine over `database` (a fresh one unless given: pass another engine's to run new
    /// rules over its data).
    init(evaluator: RuleEvaluator, database: TestDatabase = TestDatabase(schema: Features.all.schema)) {
        self.evaluator = evaluator
        self.database = database
        ingestor = Features.all.makeIngestor(
            store: database.store, evaluator: evaluator, policy: IngestPolicy(clock: clock.reading), cores: 1)
    }

    private var counter = 0
    /// Event ids are unique across engines sharing a database.
    private let prefix = UUID().uuidString.prefix(8)

    /// Ingests one event of `user` at `at` (seconds since 1970; default: the clock).
    @discardableResult
    func send(_ user: String, _ type: String, _ payload: JSONObject = [:], at: Double? = nil) -> IngestResult {
        counter += 1
        let time = at ?? clock.now
        clock.advance(to: time)
        let event: JSON = .object([
            "event_id": .string("\(prefix)-\(counter)"), "user_id": .string(user), "type": .string(type),
            "occurred_at": .string(Timestamp.format(time)), "payload": .object(payload),
        ])
        return ingestor.ingest([event])[0]
    }
}
