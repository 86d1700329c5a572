import Core
import Engine
import JQ
import RuleEngine
import Store
import TestSupport
import Testing

/// The data-driven cases of Cases/ingest.yaml, on real SQLite files.
@Suite struct IngestCaseTests {
    @Test(
        arguments: try CaseFile("ingest.yaml").cases(
            keys: CaseKeys(
                expecting: ["batches", "tables"], others: ["received_at", "setup", "setup_received_at"],
                parts: [
                    "batches": CaseKeys(
                        expecting: ["expect"], others: ["events"],
                        parts: ["expect": CaseKeys(expecting: ["status"], others: ["code", "message", "effects"])])
                ])))
    func ingest(_ testCase: NamedCase) throws {
        let spec = testCase.json
        let database = TestDatabase(schema: .core)
        let evaluator = try #require(Fixtures.bundledRules().evaluator)
        func ingestor(at text: String?) throws -> Ingestor {
            let now = try #require(text.flatMap(Timestamp.parse), "a case needs a received_at")
            return Ingestor(store: database.store, evaluator: evaluator, policy: IngestPolicy(clock: { now }))
        }
        if case .array(let setup)? = spec["setup"] {
            let results = try ingestor(at: spec["setup_received_at"]?.stringValue).ingest(setup)
            #expect(results.allSatisfy { $0.status == .accepted }, "\(results)")
        }
        let main = try ingestor(at: spec["received_at"]?.stringValue)
        for (number, batch) in (spec["batches"]?.arrayValue ?? []).enumerated() {
            let results = main.ingest(batch["events"]?.arrayValue ?? [])
            let expected = batch["expect"]?.arrayValue ?? []
            try #require(results.count == expected.count, "batch \(number): \(results.count) results")
            for (index, (result, want)) in zip(results, expected).enumerated() {
                let place = "batch \(number) event \(index): \(result.json.compactText)"
                #expect(result.status.rawValue == want["status"]?.stringValue, "\(place)")
                if let code = want["code"] { #expect(result.code == code.stringValue, "\(place)") }  // null: none
                if let fragment = want["message"]?.stringValue {
                    #expect(result.message?.contains(fragment) == true, "\(place)")
                }
                if case .array(let types)? = want["effects"] {
                    #expect(result.effects.map { $0["type"] ?? .null } == types, "\(place)")
                }
            }
        }
        for (table, rows) in spec["tables"]?.objectValue ?? [:] {
            #expect(try database.count(table: table) == Int(rows.numberValue ?? -1), "table \(table)")
        }
        #expect(try database.store.integrityCheck() == "ok")
    }
}
