import Core
import Engine
import Features
import Foundation
import JQ
import RuleEngine
import Store
import Testing
import YAML

/// A store in a fresh SQLite file, removed when released.
final class TestDatabase {
    let path = NSTemporaryDirectory() + "journey-experiments-\(UUID().uuidString).sqlite"
    private(set) lazy var store: SQLiteStore = try! SQLiteStore(path: path)

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func count(_ sql: String) throws -> Int {
        Int(try store.connection.scalar(sql) ?? -1)
    }
}

/// A rules directory of its own: the files given, removed when released.
final class RulesFolder {
    let path = NSTemporaryDirectory() + "journey-rules-\(UUID().uuidString)"

    init(_ files: [String: String]) {
        for (name, text) in files {
            let file = path + "/" + name
            try! FileManager.default.createDirectory(
                atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try! text.write(toFile: file, atomically: true, encoding: .utf8)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

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

enum Paths {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// A top-level list of a YAML file in Cases/.
    static func cases(_ name: String, _ key: String) -> [JSON] {
        do {
            let text = try String(contentsOfFile: tests + "/Cases/" + name, encoding: .utf8)
            guard let root = try YAMLParser.parse(text).first, case .array(let cases)? = try root.toJSON()[key] else {
                fatalError("\(name) has no `\(key)` list")
            }
            return cases
        } catch {
            fatalError("cannot read \(name): \(error)")
        }
    }
}

/// An ingest path over a store with the rules of `evaluator`, every feature's consumers and
/// the experiments attached; the clock is settable.
final class Engine {
    let database: TestDatabase
    let evaluator: RuleEvaluator
    let ingestor: Ingestor
    let clock = Clock()

    final class Clock: @unchecked Sendable {
        var now = Timestamp.parse("2026-11-29T12:00:00Z")!
    }

    /// An engine over `database` (a fresh one unless given: pass another engine's to run new
    /// rules over its data).
    init(evaluator: RuleEvaluator, database: TestDatabase = TestDatabase()) {
        self.evaluator = evaluator
        self.database = database
        let clock = clock
        ingestor = Features.all.makeIngestor(
            store: database.store, evaluator: evaluator,
            policy: IngestPolicy(clock: { clock.now }), cores: 1)
    }

    private var counter = 0
    /// Event ids are unique across engines sharing a database.
    private let prefix = UUID().uuidString.prefix(8)

    /// Ingests one event of `user` at `at` (seconds since 1970; default: the clock).
    @discardableResult
    func send(_ user: String, _ type: String, _ payload: JSONObject = [:], at: Double? = nil) -> IngestResult {
        counter += 1
        let time = at ?? clock.now
        if time > clock.now { clock.now = time }
        let event: JSON = .object([
            "event_id": .string("\(prefix)-\(counter)"), "user_id": .string(user), "type": .string(type),
            "occurred_at": .string(Timestamp.format(time)), "payload": .object(payload),
        ])
        return ingestor.ingest([event])[0]
    }
}
