import Core
import Features
import Foundation
import RevisionStore
import Revisions
import Server

/// The gates of a publish (load, every rule test, the change checks against the parent) on
/// the bundled rules: in this process, as `journey publish` and the service before issue 46 ran
/// them, beside a child process (`journey serve --isolated-job revision-gates`), as the service
/// runs them now so that a hostile test costs only that process. Alternating rounds; medians.
struct GatesBenchmark {
    var options: BenchmarkOptions

    func run() throws {
        let journey = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("journey").path
        guard FileManager.default.isExecutableFile(atPath: journey) else {
            throw BenchmarkOptions.Problem(description: "no journey executable beside journey-bench; build it first")
        }
        let parent = try RevisionFiles(rulesDirectory: options.rulesDirectory, pluginsDirectory: "Plugins")
        var edited = parent.files
        for (path, text) in edited where path.hasSuffix("reminders.yaml") { edited[path] = text + "\n# edited\n" }
        let files = try RevisionFiles(edited)
        let gates = RevisionGates(engine: Features.all)
        print(
            "journey-bench gates: a publish's gates on the bundled rules (\(files.files.count) files, parent the unedited ones), \(options.rounds) alternating rounds\n"
        )
        var inProcess: [Double] = []
        var isolated: [Double] = []
        var tests = 0
        for _ in 0..<options.rounds {
            var started = Date()
            let report = gates.run(files, parent: parent)
            inProcess.append(Date().timeIntervalSince(started) * 1000)
            guard report.passed else { throw BenchmarkOptions.Problem(description: "refused: \(report.summary)") }
            tests = report.testsRun
            started = Date()
            let outcome = ChildProcess.run(
                executable: journey, arguments: ["serve", "--isolated-job", IsolatedGates.jobName],
                input: IsolatedGates.input(gates, files, parent: parent, tests: true),
                limits: ChildProcess.Limits(cpu: nil, wall: .seconds(300)))
            isolated.append(Date().timeIntervalSince(started) * 1000)
            let child = try IsolatedGates.report(of: outcome, files: files, parent: parent, running: nil, gates: gates)
            guard child.passed, child.testsRun == report.testsRun, child.ruleDigests == report.ruleDigests else {
                throw BenchmarkOptions.Problem(description: "the child's report differs: \(child.summary)")
            }
        }
        let baseline = median(inProcess)
        print(
            table(
                header: ["gates (\(tests) tests)", "median ms", "min ms", "ratio"],
                rows: [
                    [
                        "in this process (baseline)", String(format: "%.1f", baseline),
                        String(format: "%.1f", inProcess.min() ?? 0), "1.00×",
                    ],
                    [
                        "in a child process (the service)", String(format: "%.1f", median(isolated)),
                        String(format: "%.1f", isolated.min() ?? 0),
                        String(format: "%.2f×", median(isolated) / max(baseline, 0.001)),
                    ],
                ]))
    }
}
