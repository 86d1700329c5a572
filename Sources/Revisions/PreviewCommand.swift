import CommandKit
import Core
import FeatureKit
import Foundation
import RevisionStore
import RuleEngine
import Store

/// `journey preview --candidate DIR|REV`: what a change would do to the dogs active lately.
enum PreviewCommand: Command {
    static let spec = CommandSpec(
        name: "journey preview",
        overview:
            "Preview a candidate's impact: what each recently active dog's screens would decide, active vs candidate.",
        discussion: """
            The candidate is a rules folder (with --candidate-plugins) or a kept revision. It is
            compared with the active revision of the store (or, before the first publish, the
            --rules and --plugins folders) for every dog with an event in the last --days:
            Today's recommendation, offer and continue card, and each branch path's Now node.
            Then the window's events are replayed in occurred_at order under both, each on a
            scratch copy of the store as it was at the window's start, and their effects
            compared (by effect type and consumer, with examples; refusals listed). Nothing is
            written to the store. Exits with 2 when the candidate does not load.
            """,
        options: [
            OptionSpec(long: "candidate", valueName: "dir|rev", help: "The candidate: a rules folder or a revision."),
            OptionSpec(
                long: "candidate-plugins", valueName: "dir", help: "The candidate's plugins folder.",
                defaultValue: "./Plugins"),
            OptionSpec(
                long: "days", valueName: "n", help: "The window: dogs with an event in the last n days.",
                defaultValue: "7"),
            OptionSpec(long: "now", valueName: "iso8601", help: "What time it is (default: the clock)."),
            CommonOptions.database, CommonOptions.rules, CommonOptions.plugins, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let candidate = try CommonOptions.required("candidate", arguments, spec: spec)
        let text = arguments.value("days", spec: spec) ?? "7"
        guard let days = Int(text), (1...366).contains(days) else {
            throw UsageError(
                message: "The value '\(text)' for '--days <n>' is not a number from 1 to 366", command: spec)
        }
        let now = try CommonOptions.now(arguments, spec: spec)
        var refused: GateReport?
        let code = CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .existing) {
            store -> ImpactReport? in
            let gates = RevisionGates(engine: engine)
            let activeFiles =
                try store.activeRevision().map { try store.ruleRevisionFiles($0.revision) }
                ?? RevisionFiles(
                    rulesDirectory: arguments.value("rules", spec: spec) ?? "./Rules",
                    pluginsDirectory: arguments.value("plugins", spec: spec) ?? "./Plugins")
            // A folder (its diagnostics name it as given), or a kept revision.
            let plugins = arguments.value("candidate-plugins", spec: spec) ?? "./Plugins"
            let isFolder = FileManager.default.fileExists(atPath: candidate)
            let candidateFiles =
                isFolder
                ? try RevisionFiles(rulesDirectory: candidate, pluginsDirectory: plugins)
                : try store.ruleRevisionFiles(try store.ruleRevision(candidate).id)
            var report = GateReport(revision: candidateFiles.revision, parent: activeFiles.revision)
            let names = isFolder ? (candidate, plugins) : ("Rules", "Plugins")
            guard let after = gates.load(candidateFiles, into: &report, displayNames: names) else {
                refused = report
                return nil
            }
            var ignored = GateReport(revision: activeFiles.revision, parent: nil)
            guard let before = gates.load(activeFiles, into: &ignored) else {
                throw PublishError(message: "the active rules do not load: \(ignored.summary)")
            }
            return try ImpactPreview(store: store, engine: engine).run(
                active: before.evaluator, candidate: after.evaluator, since: now - Double(days) * 86_400, now: now)
        } json: { report in
            report?.json ?? refused.map { ["refused": $0.json] } ?? .null
        } text: { report in
            if let report { io.stdout.write(report.text) }
        }
        if let refused {
            io.stderr.write(DiagnosticText.render(refused.diagnostics))
            io.stderr.line("Error: the candidate does not load: \(refused.summary)")
            return .ruleErrors
        }
        return code
    }
}
