import CommandKit
import Core
import FeatureKit
import Foundation
import RevisionStore
import RuleEngine
import Store

/// `journey publish`: run the gates on a rules folder and, when they pass, store and activate it.
enum PublishCommand: Command {
    static let spec = CommandSpec(
        name: "journey publish",
        overview: "Check, test and publish the rules and plugins as the active revision of the store.",
        discussion: """
            The gates: the files load (everything 'journey check' reports), every rule test passes,
            and the change from the active revision is allowed (a flow's steps change only with
            its version). Only then is the revision kept (named by its content) and made active:
            every 'journey serve' on this store serves it within a second. Publishing the active
            revision's files again changes nothing. Exits with 2 when the gates refuse.
            """,
        options: [
            CommonOptions.rules, CommonOptions.plugins, CommonOptions.database, RevisionOptions.message,
            RevisionOptions.author,
            OptionSpec(
                long: "max-changed", valueName: "percent",
                help:
                    "Refuse when the impact preview (the dogs active in the last 7 days) changes more than this share of decisions, e.g. 10%."
            ),
            OptionSpec(long: "now", valueName: "iso8601", help: "What time it is, for --max-changed's window."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let message = try CommonOptions.required("message", arguments, spec: spec)
        let maxChanged = try maximumChanged(arguments)
        let now = try CommonOptions.now(arguments, spec: spec)
        let outcome: RevisionPublisher.Outcome
        do {
            let files = try RevisionFiles(
                rulesDirectory: arguments.value("rules", spec: spec) ?? "./Rules",
                pluginsDirectory: arguments.value("plugins", spec: spec) ?? "./Plugins")
            let store = try CommonOptions.openStore(arguments, spec: spec, engine: engine)
            if let maxChanged,
                let refusal = try impactRefusal(files, store: store, engine: engine, limit: maxChanged, now: now)
            {
                io.stderr.line("Error: not published: \(refusal)")
                return .ruleErrors
            }
            var publisher = RevisionPublisher(store: store, engine: engine, now: { Date().timeIntervalSince1970 })
            publisher.gates.displayNames = (
                RuleSetLoader.displayPath(arguments.value("rules", spec: spec) ?? "./Rules"),
                RuleSetLoader.displayPath(arguments.value("plugins", spec: spec) ?? "./Plugins")
            )
            outcome = try publisher.publish(
                files, author: RevisionOptions.author(arguments, spec: spec), message: message)
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
        if CommonOptions.isJSON(arguments, spec: spec) {
            io.stdout.line(outcome.json.compactText)
        } else {
            write(outcome, io: io)
        }
        return outcome.report.passed ? .success : .ruleErrors
    }

    /// `--max-changed 10%` as a share from 0 to 1.
    private static func maximumChanged(_ arguments: ParsedArguments) throws(UsageError) -> Double? {
        guard let text = arguments.value("max-changed", spec: spec) else { return nil }
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(number), (0...100).contains(percent) else {
            throw UsageError(
                message: "The value '\(text)' for '--max-changed <percent>' is not a percentage from 0 to 100",
                command: spec)
        }
        return percent / 100
    }

    /// Why the impact of `files` against the active revision is over `limit`; nil when within
    /// it (or when nothing is published yet, so there is nothing to compare with).
    private static func impactRefusal(
        _ files: RevisionFiles, store: any Store, engine: FeatureSet, limit: Double, now: Double
    ) throws -> String? {
        guard let active = try store.activeRevision() else { return nil }
        let gates = RevisionGates(engine: engine)
        var ignored = GateReport(revision: files.revision, parent: nil)
        guard let after = gates.load(files, into: &ignored),
            let before = gates.load(try store.ruleRevisionFiles(active.revision), into: &ignored)
        else { return nil }  // the gates report a candidate that does not load
        let report = try ImpactPreview(store: store, engine: engine).run(
            active: before.evaluator, candidate: after.evaluator, since: now - 7 * 86_400, now: now)
        let share = report.decisions == 0 ? 0 : Double(report.changedCount) / Double(report.decisions)
        guard share > limit else { return nil }
        return String(
            format: "the impact preview changes %d of %d decisions (%.1f%%), more than --max-changed %.1f%%",
            report.changedCount, report.decisions, share * 100, limit * 100)
    }

    private static func write(_ outcome: RevisionPublisher.Outcome, io: CommandIO) {
        let report = outcome.report
        guard report.passed, let revision = outcome.revision else {
            io.stderr.write(DiagnosticText.render(report.diagnostics))
            for test in report.failedTests {
                io.stderr.line("\(test.location): test failed: \(test.fullName): \(test.message ?? "")")
            }
            io.stderr.line("Error: not published: \(report.summary)")
            return
        }
        let warnings = report.diagnostics.filter { $0.severity != .error }
        if !warnings.isEmpty { io.stderr.write(DiagnosticText.render(warnings)) }
        if let waiting = outcome.approvals {
            io.stdout.line(
                "kept revision \(revision.shortID), not active: it needs \(waiting.needed) approval\(waiting.needed == 1 ? "" : "s") by people other than its author (has \(waiting.approvers.count)); they approve it in the console's History or with POST /v1/rules/revisions/\(revision.shortID)/approve"
            )
        } else if outcome.activated {
            io.stdout.line(
                "published revision \(revision.shortID) (\(report.rules) rules, \(report.testsRun) tests passed); active now"
            )
        } else {
            io.stdout.line("revision \(revision.shortID) is already active; nothing changed")
        }
    }
}

/// `journey rollback REV`: make an earlier revision active again.
enum RollbackCommand: Command {
    static let spec = CommandSpec(
        name: "journey rollback",
        overview: "Make a kept revision active again (recorded in the audit trail).",
        arguments: [ArgumentSpec(name: "revision", help: "The revision (its id, or the first 4+ characters).")],
        options: [
            CommonOptions.database, RevisionOptions.message, RevisionOptions.author,
            OptionSpec(
                long: "emergency",
                help:
                    "Roll back without the approvals the store requires (journey serve --require-approvals): audited as an emergency."
            ),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let id = try CommonOptions.positionals(arguments, spec: spec, names: ["the revision"])[0]
        let message = try CommonOptions.required("message", arguments, spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .published) { store in
            try RevisionPublisher(store: store, engine: engine, now: { Date().timeIntervalSince1970 })
                .activate(
                    id, author: RevisionOptions.author(arguments, spec: spec), message: message, action: "rollback",
                    emergency: arguments.flag("emergency"))
        } json: { revision in
            ["active_revision": revision.json]
        } text: { revision in
            io.stdout.line("revision \(revision.shortID) (\(revision.message)) is active now")
        }
    }
}
