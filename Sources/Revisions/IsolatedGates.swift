import Core
import FeatureKit
import HTTP
import RevisionStore
import RuleEngine

/// The gates of a revision sent to the service, run in a child process (an ``IsolatedJob``):
/// a test that cannot be stopped (`"x" * 1e9`), crashes libjq or runs out of memory ends that
/// process, and the admin gets `422` naming the test instead of a worker dying with the
/// requests it was serving. The child says each test as it starts, so the one running when it
/// died is known.
public enum IsolatedGates {
    public static let jobName = "revision-gates"
    /// How long the whole run may take before the child is killed (each test has its own
    /// budget, and the child ends itself when one cannot be stopped; this is the last resort).
    static let timeout: Duration = .seconds(300)

    /// The child's side: `{files, parent?, tests, test_budget_ms}` → ``GateReport/transferJSON``.
    static let job = IsolatedJob(name: jobName) { input, engine, report in
        let budget = Duration.milliseconds(Int64(input["test_budget_ms"]?.numberValue ?? 5_000))
        let gates = RevisionGates(engine: engine, testBudget: budget)
        func files(_ json: JSON?) -> RevisionFiles? {
            guard let object = json?.objectValue else { return nil }
            var texts: [String: String] = [:]
            for (path, text) in object { texts[path] = text.stringValue }
            return try? RevisionFiles(texts)
        }
        guard let candidate = files(input["files"]) else {
            return ["error": "the job's input names no files"]
        }
        let result = gates.run(candidate, parent: files(input["parent"]), tests: input["tests"] == true) {
            test, rule in
            report([
                "rule": .string(rule.id), "test": .string(test.name), "file": .string(test.location.file),
                "line": .number(Double(test.location.line)), "column": .number(Double(test.location.column)),
            ])
        }
        return result.transferJSON
    }

    /// Runs `gates` on `files` (against `parent`) in a child process of `service`: the report,
    /// with the test that was running (or the load) as the failure when the child died.
    static func run(
        _ gates: RevisionGates, _ files: RevisionFiles, parent: RevisionFiles?, tests: Bool,
        in service: any ServiceContext
    ) throws(APIError) -> GateReport {
        var running: JSON?
        let outcome = service.runIsolated(
            jobName, input: input(gates, files, parent: parent, tests: tests), timeout: timeout
        ) { running = $0 }
        return try report(of: outcome, files: files, parent: parent, running: running, gates: gates)
    }

    /// What the child is sent.
    public static func input(_ gates: RevisionGates, _ files: RevisionFiles, parent: RevisionFiles?, tests: Bool)
        -> JSON
    {
        func object(_ files: RevisionFiles) -> JSON {
            .object(JSONObject(files.files.map { ($0.key, JSON.string($0.value)) }))
        }
        return [
            "files": object(files), "parent": parent.map(object) ?? .null, "tests": .bool(tests),
            "test_budget_ms": .number((gates.testBudget / .milliseconds(1)).rounded()),
        ]
    }

    /// The report of the child's `outcome`; `running` is the last test it said it started.
    public static func report(
        of outcome: IsolatedOutcome, files: RevisionFiles, parent: RevisionFiles?, running: JSON?,
        gates: RevisionGates
    ) throws(APIError) -> GateReport {
        var report = GateReport(revision: files.revision, parent: parent?.revision)
        switch outcome {
        case .answered(let answer):
            guard let decoded = GateReport(transferJSON: answer) else {
                throw APIError(
                    503, "gates_unavailable",
                    "the process that checked the revision answered something unreadable: \(answer.compactText.prefix(200))"
                )
            }
            return decoded
        case .unavailable(let why):
            throw APIError(
                503, "gates_unavailable", "the revision could not be checked now (\(why)); send it again",
                headers: [("Retry-After", "1")])
        case .ended(let why):
            if let running, let rule = running["rule"]?.stringValue, let test = running["test"]?.stringValue {
                let location = SourceLocation(
                    file: running["file"]?.stringValue ?? "Rules", line: Int(running["line"]?.numberValue ?? 1),
                    column: Int(running["column"]?.numberValue ?? 1))
                report.loaded = true
                report.failedTests = [
                    .failed(
                        rule: rule, test: test, at: location,
                        message:
                            "the test ended the process that ran it (\(why)); the revision is refused and nothing else was affected"
                    )
                ]
            } else {
                report.diagnostics.append(
                    Diagnostic(
                        code: "gates_crashed",
                        "loading the revision ended the process that checked it (\(why)); the revision is refused and nothing else was affected",
                        at: SourceLocation(file: gates.displayNames.rules, line: 1, column: 1)))
            }
            return report
        }
    }
}

extension GateReport {
    /// All of the report, for another process to read back (``init(transferJSON:)``): ``json``
    /// with each failed test's whole outcome and whether the files loaded.
    var transferJSON: JSON {
        guard case .object(var object) = json else { return json }
        object["loaded"] = .bool(loaded)
        object["failed_outcomes"] = .array(failedTests.map(\.json))
        return .object(object)
    }

    /// The report ``transferJSON`` gave; nil when `json` is not one.
    init?(transferJSON json: JSON) {
        guard let revision = json["revision"]?.stringValue, let loaded = json["loaded"]?.boolValue else { return nil }
        self.init(revision: revision, parent: json["parent"]?.stringValue)
        self.loaded = loaded
        diagnostics = (json["diagnostics"]?.arrayValue ?? []).compactMap(Diagnostic.init(json:))
        rules = Int(json["rule_count"]?.numberValue ?? 0)
        testsRun = Int(json["tests_run"]?.numberValue ?? 0)
        failedTests = (json["failed_outcomes"]?.arrayValue ?? []).compactMap(TestOutcome.init(json:))
        for (rule, digest) in json["rule_digests"]?.objectValue ?? [:] { ruleDigests[rule] = digest.stringValue }
    }
}
