import CommandKit
import Core
import FeatureKit
import Foundation
import RuleEngine

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
            RevisionOptions.author, CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let message = try CommonOptions.required("message", arguments, spec: spec)
        let outcome: RevisionPublisher.Outcome
        do {
            let files = try RevisionFiles(
                rulesDirectory: arguments.value("rules", spec: spec) ?? "./Rules",
                pluginsDirectory: arguments.value("plugins", spec: spec) ?? "./Plugins")
            let store = try CommonOptions.openStore(arguments, spec: spec)
            outcome = try RevisionPublisher(store: store, engine: engine, now: { Date().timeIntervalSince1970 })
                .publish(files, author: RevisionOptions.author(arguments, spec: spec), message: message)
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
        if outcome.activated {
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
        options: [CommonOptions.database, RevisionOptions.message, RevisionOptions.author, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let id = try RevisionOptions.positionals(arguments, spec: spec, names: ["the revision"])[0]
        let message = try CommonOptions.required("message", arguments, spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, store: .existing) { store in
            try RevisionPublisher(store: store, engine: engine, now: { Date().timeIntervalSince1970 })
                .activate(
                    id, author: RevisionOptions.author(arguments, spec: spec), message: message, action: "rollback")
        } json: { revision in
            ["active": revision.json]
        } text: { revision in
            io.stdout.line("revision \(revision.shortID) (\(revision.message)) is active now")
        }
    }
}
