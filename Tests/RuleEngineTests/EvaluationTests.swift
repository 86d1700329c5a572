import Core
import JQ
import TestSupport
import Testing

@testable import RuleEngine

/// Each case: one small rule, one input, one expected result or error.
@Suite struct EvaluationTests {
    @Test(
        arguments: try CaseFile("evaluation.yaml").cases(
            keys: CaseKeys(
                expecting: ["expect", "expect_outputs", "error"],
                others: ["rule", "input", "message", "variant", "now", "fallback_on_error"])))
    func evaluate(_ testCase: NamedCase) throws {
        let spec = testCase.json
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", try #require(spec["rule"]).compactText)
        let loaded = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
            .load()
        let evaluator = try #require(loaded.evaluator, "\(loaded.diagnostics)")
        let rule = try #require(loaded.ruleSet?.rules.first)
        let options = EvaluationOptions(
            variant: spec["variant"]?.stringValue, now: spec["now"]?.stringValue.flatMap(Timestamp.parse),
            fallbackOnError: spec["fallback_on_error"] == true)
        let input = JV(spec["input"] ?? .null)
        // The result read as libjq gives it (``RuleEvaluator/evaluate(_:input:options:reading:)``).
        let read = { () throws -> JSON in
            try evaluator.evaluate(rule.id, input: input, options: options) { try? $0.json() } ?? "not convertible"
        }
        if let code = spec["error"]?.stringValue {
            let fragment = spec["message"]?.stringValue ?? ""
            func expected(_ error: any Error) -> Bool {
                guard let error = error as? RuleError else { return false }
                return error.code.rawValue == code && error.message.contains(fragment)
            }
            #expect(performing: { try evaluator.evaluate(rule.id, input: input, options: options) }, throws: expected)
            #expect(performing: read, throws: expected)
            return
        }
        let result = try evaluator.evaluate(rule.id, input: input, options: options)
        if let expected = spec["expect"] {
            #expect(result.value ?? result.outputs.first == expected)
            #expect(try read() == result.value ?? .array(result.outputs), "read as libjq gave it")
        }
        if case .array(let expected)? = spec["expect_outputs"] {
            #expect(result.outputs == expected)
            #expect(try read() == .array(expected), "read as libjq gave it")
        }
    }

    /// A kind's quick acceptance of an output as libjq gave it never accepts what its contract
    /// refuses (the auto-complete's: an array of objects).
    @Test(arguments: [
        ("[]", true), ("[{}]", true), (#"[{"a": 1}, {"b": [2]}]"#, true), ("[1]", false), (#"[{}, "x"]"#, false),
        ("[[{}]]", false), ("{}", false), ("null", false), (#""[]""#, false),
    ])
    func autoCompleteAcceptsOnlyWhatItsContractAccepts(_ text: String, _ accepted: Bool) throws {
        let kind = try #require(AllRuleKinds.list.first { $0.name == "auto_complete" })
        let value = try JV.parse(text)
        let accepts = try #require(kind.acceptsOutput)
        #expect(accepts(value) == accepted)
        #expect((kind.checkOutput(try value.json()) == nil) == accepted)
    }

    /// A detailed decision log keeps the outputs of an evaluation read without converting them.
    @Test func aDetailedLogKeepsTheOutputsOfAReadResult() throws {
        let evaluator = try loadedEvaluator(ruleFile: "rule: r\nkind: auto_complete\nexpr: '[{id: 1}, {id: 2}]'\n")
        let log = DecisionLog(detailed: true)
        evaluator.decisionLog = log
        let input = JV(["dog": [:], "block": [:], "records": [], "events": []])
        let count = try evaluator.evaluate("r", input: input, reading: \.count)
        #expect(count == 2)
        #expect(log.entries.map(\.outputs) == [[[["id": 1], ["id": 2]]]])
    }

    @Test func fallbackResultSaysWhy() throws {
        let evaluator = try loadedEvaluator(ruleFile: "rule: r\nkind: value\nexpr: error(\"x\")\nfallback: 1\n")
        let result = try evaluator.evaluate("r", input: JV(nil), options: .init(fallbackOnError: true))
        #expect(result.usedFallback)
        #expect(result.primaryError?.code == .runtimeError)
        #expect(result.outputs == [1])
    }

    /// A result the caller's output check refuses is an `unknown_reference` failure, answered by
    /// the fallback (also checked) and told to the observer like any failure.
    @Test func aResultNamingWhatDoesNotExistIsAFailure() throws {
        let evaluator = try loadedEvaluator(
            ruleFile: "rule: r\nkind: personal_note\nexpr: '\"gone\"'\nfallback: '\"here\"'\n")
        let observer = FailureRecorder()
        evaluator.observer = observer
        let exists: EvaluationOptions.OutputCheck = { output in
            output == "here" ? nil : "thing `\(output.compactText)`, which does not exist"
        }
        #expect {
            try evaluator.evaluate("r", input: JV(["dog": [:]]), options: .init(outputCheck: exists))
        } throws: { error in
            let error = error as! RuleError
            return error.code == .unknownReference
                && error.message == "rule `r` returned thing `\"gone\"`, which does not exist"
        }
        let answered = try evaluator.evaluate(
            "r", input: JV(["dog": [:]]), options: .init(fallbackOnError: true, outputCheck: exists))
        #expect(answered.usedFallback)
        #expect(answered.primaryError?.code == .unknownReference)
        #expect(observer.failures == ["default: unknown_reference", "default: unknown_reference", "fallback: -"])
    }

    @Test func unknownRuleSuggestsTheClosest() throws {
        let evaluator = try loadedEvaluator(ruleFile: "rule: recommendation\nkind: value\nexpr: 1\n")
        #expect {
            try evaluator.evaluate("recomendation", input: JV(nil))
        } throws: { ($0 as! RuleError).message.contains("did you mean `recommendation`?") }
    }

    @Test func aSecondEvaluatorCompilesLazilyOverTheSameRuleSet() throws {
        let directory = try TemporaryDirectory()
        try directory.write("r.yaml", "rule: r\nkind: value\nexpr: . * 2\n")
        let ruleSet = try #require(
            RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list).load()
                .ruleSet)
        let evaluator = RuleEvaluator(ruleSet: ruleSet)
        #expect(try evaluator.evaluate("r", input: JV(21)).outputs == [42])
    }
}

/// An evaluator of the rule file `text`, loaded (and compiled) from a temporary directory.
func loadedEvaluator(ruleFile text: String) throws -> RuleEvaluator {
    let directory = try TemporaryDirectory()
    try directory.write("r.yaml", text)
    let loaded = RuleSetLoader(rulesDirectory: directory.path, pluginsDirectory: nil, ruleKinds: AllRuleKinds.list)
        .load()
    return try #require(loaded.evaluator, "\(loaded.diagnostics)")
}

/// Records each evaluation's variant and failure code.
final class FailureRecorder: EvaluationObserver {
    var failures: [String] = []
    func willEvaluate(_ rule: RuleDefinition, variant: String) {}
    func didEvaluate(_ rule: RuleDefinition, variant: String, input: JV, duration: Duration, error: RuleError?) {
        failures.append("\(variant): \(error?.code.rawValue ?? "-")")
    }
}
