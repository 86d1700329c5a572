import Core
import Foundation
import HTTP
import TestSupport
import Testing

/// A rule that fails or is quarantined never makes a view answer 500: every view of the Dog
/// Journey answers 200 with what the fallback (or nothing) gave and says so under `degraded`.
@Suite struct DegradedViewTests {
    /// The recommendation fails (no fallback); `auto_complete.save_weight` loops past a tiny
    /// budget (no fallback); the other auto-complete rules answer.
    static let files: [String: String] = [
        "journey/recommendation.yaml": """
        rule: recommendation
        kind: recommendation
        description: Fails, with no fallback.
        experiment: recommendation-v2
        variants:
          control: 'error("broken")'
          by-branch: 'error("broken")'

        """,
        "journey/auto_complete.yaml": """
        rules:
          - rule: auto_complete.course_started
            kind: auto_complete
            description: Answers.
            expr: '[]'
          - rule: auto_complete.save_weight
            kind: auto_complete
            description: Loops past its budget, with no fallback.
            expr: 'def f: f; f'
            budget: 20ms
          - rule: auto_complete.add_vaccine
            kind: auto_complete
            description: Fails, answered by its fallback.
            expr: 'error("no")'
            fallback: '[]'

        """,
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var path: String
        /// The rules listed under `degraded`, in order.
        var degraded: [String]
        var testDescription: String { path }
    }

    static let cases: [Case] = [
        Case(path: "/v1/dogs/miso-001/today", degraded: ["recommendation"]),
        Case(path: "/v1/dogs/miso-001/journey", degraded: ["recommendation"]),
        Case(path: "/v1/dogs/miso-001/branches/health", degraded: ["recommendation"]),
        Case(path: "/v1/dogs/miso-001/map", degraded: ["recommendation"]),
        Case(
            path: "/v1/dogs/miso-001/blocks/weight-baseline/preview",
            degraded: ["recommendation", "auto_complete.save_weight"]),
        Case(path: "/v1/dogs/miso-001/blocks/vaccination-record/preview", degraded: ["recommendation"]),
        Case(
            path: "/v1/dogs/miso-001/blocks/weight-baseline", degraded: ["recommendation", "auto_complete.save_weight"]),
    ]

    @Test(arguments: cases)
    func aFailingRuleNeverFailsTheView(_ testCase: Case) throws {
        let harness = try ServiceHarness(files: Self.files)
        let response = harness.send("GET", testCase.path)
        #expect(response.status == 200, "\(response.text)")
        let degraded = response.json["degraded"]?.arrayValue ?? []
        #expect(degraded.compactMap { $0["rule"]?.stringValue } == testCase.degraded, "\(response.text)")
        #expect(degraded.first?.objectValue.map { Set($0.keys) } == ["rule", "reason", "error", "answered_by"])
    }

    /// The overrun answers `failed` (nothing answered) and quarantines the rule for that dog
    /// only: the dog's next view says `quarantined`; another dog's view evaluates the rule.
    @Test func anOverrunIsQuarantinedForItsDogOnly() throws {
        let harness = try ServiceHarness(viewCache: 0, files: Self.files)
        let registered = harness.send(
            "POST", "/v1/dogs",
            json: [
                "dog_id": "rex", "user_id": "owner-3", "name": "Rex", "age_range": "4-8m", "breed": "shiba_inu",
                "timezone": "Asia/Tokyo", "metrics": ["bond": 62, "impulse_control": 30, "recall": 30],
            ])
        #expect(registered.status == 201, "\(registered.text)")
        let preview = "/blocks/weight-baseline/preview"
        func saveWeight(_ dog: String) -> JSON? {
            let response = harness.send("GET", "/v1/dogs/\(dog)" + preview)
            #expect(response.status == 200, "\(response.text)")
            return response.json["degraded"]?.arrayValue?.first { $0["rule"] == "auto_complete.save_weight" }
        }
        #expect(
            saveWeight("miso-001") == [
                "rule": "auto_complete.save_weight", "reason": "failed", "error": "timeout", "answered_by": "nothing",
            ])
        #expect(saveWeight("miso-001")?["reason"] == "quarantined")
        #expect(saveWeight("rex")?["error"] == "timeout", "another dog gets the rule itself")
        func inputs() -> Set<String> {
            let listed = harness.send("GET", "/v1/rules", admin: true).json["quarantined"]?.arrayValue ?? []
            return Set(
                listed.filter { $0["rule"] == "auto_complete.save_weight" }.compactMap { $0["input"]?.stringValue })
        }
        #expect(inputs().isSuperset(of: ["dog:miso-001", "dog:rex"]), "\(inputs())")
        let lift = harness.send("DELETE", "/v1/rules/auto_complete.save_weight/quarantine?input=dog:rex", admin: true)
        #expect(
            lift.status == 200 && lift.json == ["rule": "auto_complete.save_weight", "input": "dog:rex", "lifted": 1])
        let again = harness.send("DELETE", "/v1/rules/auto_complete.save_weight/quarantine?input=dog:rex", admin: true)
        #expect(again.status == 404 && again.json["code"] == "not_quarantined")
        #expect(inputs().contains("dog:miso-001") && !inputs().contains("dog:rex"))
        let metrics = harness.send("GET", "/metrics", admin: true).text
        #expect(
            metrics.contains(#"journey_rule_quarantined_inputs{rule="auto_complete.save_weight"} \#(inputs().count)"#),
            "\(metrics)")
    }
}
