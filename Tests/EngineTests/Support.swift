import Core
import Engine
import Foundation
import JQ
import RuleEngine
import Store
import YAML

/// A store in a fresh SQLite file, removed when released.
final class TestDatabase {
    let path = NSTemporaryDirectory() + "journey-engine-\(UUID().uuidString).sqlite"
    private(set) lazy var store: SQLiteStore = try! SQLiteStore(path: path)

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func count(_ table: String) throws -> Int {
        Int(try store.connection.scalar("SELECT count(*) FROM \(table)") ?? -1)
    }
}

enum Fixtures {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The bundled event rules (Rules/events: records, analytics, reminders): the engine's
    /// tests need no feature's documents.
    static func bundledRules() -> RuleSetLoader.Result {
        RuleSetLoader(rulesDirectory: repository + "/Rules/events", pluginsDirectory: nil).load()
    }

    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!

    /// An ingestor over `database` with the bundled rules and a fixed clock.
    static func ingestor(_ database: TestDatabase, now: Double = now, consumers: [any EventConsumer]? = nil) -> Ingestor
    {
        let loaded = bundledRules()
        precondition(loaded.evaluator != nil, "\(loaded.diagnostics)")
        return Ingestor(
            store: database.store, evaluator: loaded.evaluator!, consumers: consumers,
            policy: IngestPolicy(clock: { now }))
    }

    static func registration(
        user: String = "u1", dog: String = "q-123", id: String = "reg-1", at: String = "2026-11-29T09:00:00+01:00"
    ) -> JSON {
        [
            "event_id": .string(id), "user_id": .string(user), "type": "dog_registered", "occurred_at": .string(at),
            "dog_id": .string(dog),
            "payload": [
                "name": "Q", "age_range": "4-8m", "breed": "border_collie", "timezone": "Europe/Berlin",
                "metrics": ["bond": 55, "impulse_control": 22],
            ],
        ]
    }

    static func weight(
        _ id: String, kg: Double = 12.6, user: String = "u1", dog: String = "q-123",
        at: String = "2026-11-29T10:00:00+01:00"
    ) -> JSON {
        [
            "event_id": .string(id), "user_id": .string(user), "type": "weight_saved", "occurred_at": .string(at),
            "dog_id": .string(dog), "payload": ["kg": .number(kg)],
        ]
    }

    /// Reads a `cases:` list from Tests/EngineTests/Cases.
    static func cases(_ name: String) -> [JSON] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Cases/\(name)")
            .path
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            guard let root = try YAMLParser.parse(text).first else { fatalError("empty \(name)") }
            let json = try JSONParser().parse(try yamlToJSONText(root))
            guard case .array(let cases)? = json["cases"] else { fatalError("\(name) has no cases") }
            return cases
        } catch {
            fatalError("cannot read \(name): \(error)")
        }
    }

    /// YAML → JSON text through the core schema (tests only need plain data).
    private static func yamlToJSONText(_ node: YAMLNode) throws -> String {
        func convert(_ node: YAMLNode) throws -> JSON {
            switch node.content {
            case .scalar:
                switch try node.resolvedScalar() {
                case .null?, nil: return .null
                case .bool(let b)?: return .bool(b)
                case .number(let n)?: return .number(n)
                case .string(let s)?: return .string(s)
                }
            case .sequence(let items): return .array(try items.map(convert))
            case .mapping(let pairs):
                return .object(JSONObject(try pairs.map { ($0.key.scalar?.value ?? "", try convert($0.value)) }))
            }
        }
        return try convert(node).compactText
    }
}
