import Core
import Features
import JQ
import TestSupport
import Testing

@testable import RuleEngine

/// Typed rule parameters: each type as written and as rules read it, every refusal at its
/// place (Cases/params.yaml), and a value's way into programs, fields and tests.
@Suite struct ParameterTests {
    static let cases = try! CaseFile("params.yaml")

    @Test(
        arguments: try cases.cases(
            "accepted", keys: CaseKeys(expecting: ["reads"], others: ["declare", "value", "shows"])))
    func eachTypeReadsAsDeclared(_ testCase: NamedCase) throws {
        guard case .object(var declaration)? = testCase["declare"] else {
            Issue.record("the case declares nothing")
            return
        }
        declaration["description"] = "What it does."
        var files = [
            "r.yaml": "rule: r\nkind: value\nparams:\n  p: \(JSON.object(declaration).compactText)\nexpr: $params.p\n"
        ]
        if let value = testCase["value"] { files["params.yaml"] = "values:\n  r:\n    p: \(value.compactText)\n" }
        let directory = try TemporaryDirectory(files)
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        let ruleSet = try #require(result.ruleSet, "\(result.diagnostics)")
        let evaluator = try #require(result.evaluator)
        #expect(try evaluator.evaluate("r", input: JV(JSON.object([:]))).outputs == [testCase["reads"]])
        let parameter = try #require(ruleSet.parameter("r.p"))
        #expect(
            parameter.value.json == testCase["shows"] ?? testCase["value"] ?? parameter.declaration.defaultValue.json)
        #expect(parameter.isDefault == (testCase["value"] == nil))
        #expect(parameter.valueLocation.file.hasSuffix(testCase["value"] == nil ? "r.yaml" : "params.yaml"))
    }

    @Test(arguments: try cases.cases("refused", keys: LoadDiagnosticsTests.keys).map { LoadCase($0.json) })
    func badParametersAreRefusedAtTheirPlace(_ testCase: LoadCase) throws {
        try LoadDiagnosticsTests.expectRefused(testCase)
    }

    /// A new value is a new program: the rule's digest changes and the evaluator compiled from
    /// the new revision gives the new result; the rest of the rule set keeps its digests.
    @Test func aNewValueChangesTheRuleAndOnlyIt() throws {
        let directory = try TemporaryDirectory([
            "r.yaml": """
            rule: r
            kind: value
            params:
              limit: {type: integer, default: 3, description: How many.}
            expr: '[range($params.limit)] | length'
            """,
            "s.yaml": "rule: s\nkind: value\nexpr: '1'\n",
        ])
        func load() throws -> (RuleSet, RuleEvaluator) {
            let result = RuleSetLoader(
                rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list
            ).load()
            return (try #require(result.ruleSet, "\(result.diagnostics)"), try #require(result.evaluator))
        }
        let (before, first) = try load()
        #expect(try first.evaluate("r", input: JV(JSON.null)).outputs == [3])
        try directory.write("params.yaml", "values:\n  r:\n    limit: 5\n")
        let (after, second) = try load()
        #expect(try second.evaluate("r", input: JV(JSON.null)).outputs == [5])
        #expect(before.digest(of: "r") != after.digest(of: "r"))
        #expect(before.digest(of: "s") == after.digest(of: "s"))
        #expect(before.revision != after.revision)
    }

    /// A test's `params:` reach its programs and the fields the engine reads (`reads.within`).
    @Test func aTestsValuesReachItsProgramsAndItsTimeWindow() throws {
        let directory = try TemporaryDirectory([
            "r.yaml": """
            rule: r
            kind: auto_complete
            params:
              window: {type: duration, default: 30d, description: How far back.}
            reads: {records: [weight], events: [], within: $params.window}
            expr: '[.records[] | {source: "record", record_id: .id, seconds: $params.window}]'
            tests:
              - name: the default window
                input: {dog: {}, block: {}, events: [], records: [{id: old, kind: weight, recorded_at: "2026-10-01T00:00:00Z"}]}
                now: "2026-10-20T00:00:00Z"
                expect: [{source: record, record_id: old, seconds: 2592000}]
              - name: a shorter window reads less
                input: {dog: {}, block: {}, events: [], records: [{id: old, kind: weight, recorded_at: "2026-10-01T00:00:00Z"}]}
                now: "2026-10-20T00:00:00Z"
                params: {window: 7d}
                expect: []
            """
        ])
        let result = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        let evaluator = try #require(result.evaluator, "\(result.diagnostics)")
        let outcomes = RuleTestRunner(evaluator: evaluator).run()
        #expect(outcomes.map(\.status) == [.passed, .passed], "\(outcomes.map { $0.message ?? "" })")
        let rule = try #require(result.ruleSet?.rule("r"))
        #expect(rule.reads?.within == .seconds(30 * 86_400))
        #expect(rule.with(parameters: ["window": 604_800]).reads?.within == .seconds(7 * 86_400))
    }
}
