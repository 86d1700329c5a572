import Core
import FeatureKit
import Foundation
import RevisionStore
import RuleEngine

/// The gates a revision passes before it is stored and activated: it loads (every check of
/// `journey check`), every rule test passes, and the change from the active revision is
/// allowed (``FeatureSet/checkChange(from:to:)``). Nothing is written to the store here.
public struct RevisionGates {
    public var engine: FeatureSet
    /// Budget of each rule test.
    public var testBudget: Duration
    /// How diagnostics name the candidate's folders (`Rules`, `Plugins`, or the folders it was
    /// read from).
    public var displayNames = (rules: "Rules", plugins: "Plugins")

    public init(engine: FeatureSet, testBudget: Duration = .seconds(5)) {
        self.engine = engine
        self.testBudget = testBudget
    }

    /// Runs every gate on `files`, against `parent` (the active revision's files) when given;
    /// without `tests`, all but the rule tests (what an editor asks as the text changes).
    /// `onTest` is told each test as it starts.
    public func run(
        _ files: RevisionFiles, parent: RevisionFiles? = nil, tests: Bool = true,
        onTest: (RuleTest, RuleDefinition) -> Void = { _, _ in }
    ) -> GateReport {
        let revision = files.revision
        var report = GateReport(revision: revision, parent: parent?.revision)
        guard let loaded = load(files, into: &report, displayNames: displayNames) else { return report }
        report.loaded = true
        report.rules = loaded.ruleSet.rules.count
        for rule in loaded.ruleSet.rules { report.ruleDigests[rule.id] = loaded.ruleSet.digest(of: rule.id) }
        if tests {
            let outcomes = RuleTestRunner(evaluator: loaded.evaluator, timeout: testBudget).run(onStart: onTest)
            report.testsRun = outcomes.count
            report.failedTests = outcomes.filter { $0.status == .failed }
        }
        if let parent, parent.revision != revision {
            var ignored = GateReport(revision: parent.revision, parent: nil)
            if let before = load(parent, into: &ignored) {
                report.diagnostics += engine.checkChange(from: before.ruleSet, to: loaded.ruleSet)
                report.diagnostics += UnchangedTestsCheck.diagnostics(from: before.ruleSet, to: loaded.ruleSet)
            }
        }
        return report
    }

    /// Loads `files` as the loader loads a folder, naming files `Rules/…` and `Plugins/…`;
    /// the diagnostics go into `report`.
    public func load(
        _ files: RevisionFiles, into report: inout GateReport,
        displayNames: (rules: String, plugins: String) = (
            "Rules", "Plugins"
        )
    ) -> (ruleSet: RuleSet, evaluator: RuleEvaluator)? {
        // The folder lives as long as the rule set: programs compiled later (another thread's
        // evaluator, a fallback used for the first time) read the rule library from it.
        let folder = TemporaryRevisionFolder()
        let directory = folder.path
        do {
            try files.write(to: directory)
        } catch {
            report.diagnostics.append(
                Diagnostic(
                    code: "io_error",
                    "cannot write the revision's files to \(directory): \(error.localizedDescription)",
                    at: SourceLocation(file: "Rules", line: 1, column: 1)))
            return nil
        }
        var loader = engine.loader(rulesDirectory: directory + "/Rules", pluginsDirectory: directory + "/Plugins")
        loader.displayNames = displayNames
        loader.folderOwner = folder
        let result = loader.load()
        report.diagnostics += result.diagnostics
        guard let ruleSet = result.ruleSet, let evaluator = result.evaluator else { return nil }
        return (ruleSet, evaluator)
    }
}

/// What the gates found about one revision.
public struct GateReport: Sendable {
    public var revision: String
    public var parent: String?
    /// Every diagnostic: the load's and the change checks'.
    public var diagnostics: [Diagnostic] = []
    public var rules = 0
    /// Each rule's digest (what decides its behaviour), by id: per-rule diffs need no load.
    public var ruleDigests: [String: String] = [:]
    public var testsRun = 0
    public var failedTests: [TestOutcome] = []

    public init(revision: String, parent: String?) {
        self.revision = revision
        self.parent = parent
    }

    /// Whether the files loaded (the tests ran).
    public var loaded = false

    /// Whether the revision may be stored and activated.
    public var passed: Bool { loaded && !diagnostics.hasErrors && failedTests.isEmpty }

    /// One line: `passed: 31 rules, 85 tests` or the first reason it did not.
    public var summary: String {
        let errors = diagnostics.filter { $0.severity == .error }
        if let first = errors.first {
            return
                "refused: \(errors.count) error\(errors.count == 1 ? "" : "s"), first \(first.location): \(first.message)"
        }
        if let first = failedTests.first {
            return
                "refused: \(failedTests.count) failing test\(failedTests.count == 1 ? "" : "s"), first \(first.fullName) at \(first.location)"
        }
        return "passed: \(rules) rules, \(testsRun) tests"
    }

    public var json: JSON {
        [
            "revision": .string(revision), "parent": parent.map(JSON.string) ?? .null, "passed": .bool(passed),
            "summary": .string(summary), "rule_count": .number(Double(rules)), "tests_run": .number(Double(testsRun)),
            "failed_tests": .array(
                failedTests.map { test in
                    var object: JSONObject = [
                        "test": .string(test.fullName), "location": .string(test.location.description),
                        "message": .string(test.message ?? ""),
                    ]
                    if let expected = test.expected { object["expected"] = expected }
                    if let actual = test.actual { object["actual"] = actual }
                    return .object(object)
                }),
            "diagnostics": .array(diagnostics.map(\.json)),
            "rule_digests": .object(
                JSONObject(ruleDigests.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ]
    }
}

/// A revision's files written out for the loader, removed when the last rule set loaded from
/// it is released.
final class TemporaryRevisionFolder: Sendable {
    let path = FileManager.default.temporaryDirectory.path + "/journey-revision-\(UUID().uuidString)"

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
