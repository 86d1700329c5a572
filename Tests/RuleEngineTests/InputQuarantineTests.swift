import Core
import JQ
import TestSupport
import Testing

@testable import RuleEngine

/// A rule quarantined for one input answers with its fallback for that input only; everyone
/// else gets the rule. Views list what answered instead under `degraded`.
@Suite struct InputQuarantineTests {
    static func evaluator(_ yaml: String = "rule: r\nkind: value\nexpr: '.n + 1'\nfallback: '0'\n") throws
        -> RuleEvaluator
    {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", yaml)
        return try #require(
            RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list).load()
                .evaluator)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Whose input is evaluated (nil: keyed by the input's digest).
        var inputKey: String?
        var quarantinedFor: [String]
        var everyone = false
        var expectFallback: Bool
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "not quarantined", inputKey: "dog:a", quarantinedFor: [], expectFallback: false),
        Case(name: "quarantined for this dog", inputKey: "dog:big", quarantinedFor: ["dog:big"], expectFallback: true),
        Case(
            name: "quarantined for another dog only", inputKey: "dog:a", quarantinedFor: ["dog:big"],
            expectFallback: false),
        Case(
            name: "quarantined for everyone", inputKey: "dog:a", quarantinedFor: [], everyone: true,
            expectFallback: true),
        Case(
            name: "an input without a key, by its digest", inputKey: nil, quarantinedFor: ["digest"],
            expectFallback: true),
        Case(name: "another input's digest", inputKey: nil, quarantinedFor: ["sha256:0"], expectFallback: false),
    ]

    @Test(arguments: cases)
    func aQuarantineCoversItsInputOnly(_ testCase: Case) throws {
        let evaluator = try Self.evaluator()
        let input = JV(["n": 41] as JSON)
        evaluator.inputKey = testCase.inputKey
        let keys = testCase.quarantinedFor.map { $0 == "digest" ? evaluator.quarantineKey(of: input) : $0 }
        if !keys.isEmpty { evaluator.quarantinedInputs["r"] = Set(keys) }
        if testCase.everyone { evaluator.quarantined = ["r"] }
        let result = try evaluator.evaluate("r", input: input)
        #expect(result.usedFallback == testCase.expectFallback)
        #expect(result.outputs == [testCase.expectFallback ? 0 : 42])
        if testCase.expectFallback {
            #expect(result.primaryError?.code == .quarantined)
            #expect(
                Degradation.of(result)?.json == [
                    "rule": "r", "reason": "quarantined", "error": "quarantined", "answered_by": "fallback",
                ])
        } else {
            #expect(Degradation.of(result) == nil)
        }
    }

    @Test func theDigestKeyIsTheInputsSHA256() throws {
        let evaluator = try Self.evaluator()
        let key = evaluator.quarantineKey(of: JV(["n": 1] as JSON))
        #expect(key == "sha256:" + SHA256.hex(#"{"n":1}"#))
        evaluator.inputKey = "user:u"
        #expect(evaluator.quarantineKey(of: JV(["n": 1] as JSON)) == "user:u")
    }

    /// A view's log: a rule answered by its fallback after a timeout is `failed`, one that failed
    /// with no fallback answered nothing; each rule once.
    @Test func aViewsDegradationsComeFromItsDecisionLog() throws {
        let evaluator = try Self.evaluator(
            """
            rules:
              - {rule: slow, kind: value, expr: 'def f: f; f', fallback: '0', budget: 10ms}
              - {rule: broken, kind: value, expr: 'error("no")'}
              - {rule: fine, kind: value, expr: '1'}
            """)
        let log = DecisionLog()
        evaluator.decisionLog = log
        let options = EvaluationOptions(fallbackOnError: true)
        for _ in 0..<2 { _ = try evaluator.evaluate("slow", input: JV(nil), options: options) }
        #expect(throws: RuleError.self) { try evaluator.evaluate("broken", input: JV(nil), options: options) }
        _ = try evaluator.evaluate("fine", input: JV(nil), options: options)
        #expect(
            Degradation.of(log.entries).map(\.json) == [
                ["rule": "slow", "reason": "failed", "error": "timeout", "answered_by": "fallback"],
                ["rule": "broken", "reason": "failed", "error": "runtime_error", "answered_by": "nothing"],
            ])
    }
}
