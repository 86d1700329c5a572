import Core
import Engine
import Features
import Foundation
import JQ
import RuleEngine
import Store
import Testing
import YAML

enum Paths {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The `cases:` list of a YAML file in Cases/.
    static func cases(_ name: String) -> [JSON] {
        do {
            let text = try String(contentsOfFile: tests + "/Cases/" + name, encoding: .utf8)
            guard let root = try YAMLParser.parse(text).first, case .array(let cases)? = try root.toJSON()["cases"]
            else {
                fatalError("\(name) has no `cases` list")
            }
            return cases
        } catch {
            fatalError("cannot read \(name): \(error)")
        }
    }
}

/// The bundled rules with every feature, loaded once per process.
enum Bundled {
    static let load: (ruleSet: RuleSet?, problems: String) = {
        let result = Features.all.loader(
            rulesDirectory: Paths.repository + "/Rules", pluginsDirectory: Paths.repository + "/Plugins"
        ).load()
        return (result.ruleSet, result.diagnostics.map(\.description).joined(separator: "\n"))
    }()
}

/// A fresh SQLite store, the bundled rules and every consumer; each event is received a
/// minute after it happened.
final class HabitsHarness {
    let path = NSTemporaryDirectory() + "journey-habits-\(UUID().uuidString).sqlite"
    let store: SQLiteStore
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    private let clock = Clock()
    private var counter = 0

    final class Clock: @unchecked Sendable {
        var now = 0.0
    }

    init() throws {
        store = try SQLiteStore(path: path)
        evaluator = try #require(Bundled.load.ruleSet.map { RuleEvaluator(ruleSet: $0) }, "\(Bundled.load.problems)")
        let clock = clock
        ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(clock: { clock.now }), cores: 1)
    }

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
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
