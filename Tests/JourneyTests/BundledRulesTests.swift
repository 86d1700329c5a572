import Features
import Foundation
import JQ
import Journey
import RuleEngine
import TestSupport
import Testing

/// The rules shipped in Rules/ load cleanly and pass their own tests.
@Suite struct BundledRulesTests {
    let loaded = Features.all.loader(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).load()

    @Test func bundledRulesLoadWithoutDiagnostics() {
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        #expect(loaded.ruleSet != nil)
    }

    @Test func starterRulesArePresent() throws {
        let ruleSet = try #require(loaded.ruleSet)
        for id in [
            "recommendation", "auto_complete.course_started", "auto_complete.save_weight", "auto_complete.add_vaccine",
        ] {
            let rule = try #require(ruleSet.rule(id), "missing \(id)")
            #expect(!rule.tests.isEmpty, "\(id) has no tests")
        }
        #expect(ruleSet.rule("recommendation")?.variants.map(\.name) == ["control", "by-branch"])
        #expect(ruleSet.rule("recommendation")?.fallback != nil)
    }

    @Test func everyInlineTestPasses() throws {
        let evaluator = try #require(loaded.ruleSet.map { RuleEvaluator(ruleSet: $0) })
        let outcomes = RuleTestRunner(evaluator: evaluator).run()
        #expect(outcomes.count >= 15)
        for outcome in outcomes where outcome.status == .failed {
            Issue.record("\(outcome.fullName): \(outcome.message ?? "")")
        }
    }

    @Test func fixturesAreRealistic() throws {
        let ruleSet = try #require(loaded.ruleSet)
        let test = try #require(ruleSet.rule("recommendation")?.tests.first { $0.inputFile == "fixtures/q-123.json" })
        let dog = try #require(test.input["dog"])
        #expect(dog["metrics"]?.objectValue?.count == 8)
        #expect(test.input["branches"]?.arrayValue?.count == 3)
        #expect(test.input["blocks"]?.arrayValue?.count == 21)
        #expect((test.input["events"]?.arrayValue?.count ?? 0) >= 50)
    }
}
