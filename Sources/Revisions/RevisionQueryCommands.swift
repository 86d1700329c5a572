import CommandKit
import Core
import FeatureKit
import Foundation
import RevisionStore
import RuleEngine

/// `journey revisions`: the kept revisions, newest first, the active one marked.
enum RevisionsCommand: Command {
    static let spec = CommandSpec(
        name: "journey revisions",
        overview: "List the published rule revisions, newest first; `*` marks the active one.",
        options: [CommonOptions.database, RevisionOptions.limit, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let limit = try RevisionOptions.limit(arguments, spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .published) { store in
            (try store.ruleRevisions(limit: limit), try store.activeRevision())
        } json: { revisions, active in
            [
                "active": active.map { .string($0.revision) } ?? .null,
                "revisions": .array(revisions.map(\.json)),
            ]
        } text: { revisions, active in
            guard !revisions.isEmpty else {
                io.stdout.line("No revisions yet: publish one with 'journey publish --message TEXT'.")
                return
            }
            let rows = revisions.map { revision in
                [
                    (revision.id == active?.revision ? "* " : "  ") + revision.shortID, shortTime(revision.createdAt),
                    revision.author, revision.gates["summary"]?.stringValue ?? "", revision.message,
                ]
            }
            io.stdout.write(
                TextTable.table(header: ["REVISION", "PUBLISHED", "AUTHOR", "GATES", "MESSAGE"], rows: rows))
        }
    }
}

/// `journey show REV`: one revision: who, when, why, its gates and files (or one file's text).
enum ShowRevisionCommand: Command {
    static let spec = CommandSpec(
        name: "journey show",
        overview: "Show a revision: author, time, message, parent, gate results and files.",
        arguments: [ArgumentSpec(name: "revision", help: "The revision (its id, or the first 4+ characters).")],
        options: [
            CommonOptions.database,
            OptionSpec(long: "file", valueName: "path", help: "Print this file of the revision (Rules/…)."),
            CommonOptions.format,
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let id = try CommonOptions.positionals(arguments, spec: spec, names: ["the revision"])[0]
        let file = arguments.value("file", spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .published) { store in
            let revision = try store.ruleRevision(id)
            let files = try store.ruleRevisionFiles(revision.id)
            if let file, files.files[file] == nil {
                throw PublishError(
                    message:
                        "revision \(revision.shortID) has no file \(file); its files: \(files.files.keys.sorted().joined(separator: ", "))"
                )
            }
            return (revision, files, try store.activeRevision()?.revision == revision.id)
        } json: { revision, files, active in
            if let file { return ["path": .string(file), "text": .string(files.files[file] ?? "")] }
            guard case .object(var object) = revision.json else { return revision.json }
            object["active"] = .bool(active)
            object["files"] = .array(files.files.keys.sorted().map(JSON.string))
            return .object(object)
        } text: { revision, files, active in
            if let file {
                io.stdout.write(files.files[file] ?? "")
                return
            }
            io.stdout.line("revision  \(revision.id)\(active ? " (active)" : "")")
            io.stdout.line("parent    \(revision.parent ?? "-")")
            io.stdout.line("author    \(revision.author)")
            io.stdout.line("published \(Timestamp.format(revision.createdAt))")
            io.stdout.line("message   \(revision.message)")
            io.stdout.line("gates     \(revision.gates["summary"]?.stringValue ?? "-")")
            io.stdout.line("files     \(files.files.count)")
            for path in files.files.keys.sorted() { io.stdout.line("  \(path)") }
        }
    }
}

/// `journey diff REV1 [REV2]`: what changes between two revisions (REV2: the active one).
enum DiffRevisionsCommand: Command {
    static let spec = CommandSpec(
        name: "journey diff",
        overview: "Show what changes from one revision to another: rules added, removed, changed; each file's lines.",
        arguments: [
            ArgumentSpec(name: "from", help: "The earlier revision."),
            ArgumentSpec(name: "to", help: "The later revision (default: the active one)."),
        ],
        options: [CommonOptions.database, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        let ids = try CommonOptions.positionals(arguments, spec: spec, names: ["the revision", "to"], optional: 1)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .published) { store in
            let from = try store.ruleRevision(ids[0])
            guard let target = ids.count > 1 ? ids[1] : try store.activeRevision()?.revision else {
                throw PublishError(message: "no revision is active; give the second revision")
            }
            return try RevisionPublisher(store: store, engine: engine, now: { 0 }).diff(
                from, try store.ruleRevision(target))
        } json: { diff in
            diff.json
        } text: { diff in
            io.stdout.write(diff.text)
        }
    }
}

/// `journey audit`: who published, activated, rolled back, quarantined or lifted what, when, why.
enum AuditCommand: Command {
    static let spec = CommandSpec(
        name: "journey audit",
        overview: "Show the audit trail, newest first: publishes, activations, rollbacks, quarantines and lifts.",
        options: [CommonOptions.database, RevisionOptions.limit, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let limit = try RevisionOptions.limit(arguments, spec: spec)
        return CommonOptions.present(arguments, spec: spec, io: io, engine: engine, store: .published) { store in
            try store.auditEntries(limit: limit)
        } json: { entries in
            ["audit": .array(entries.map(\.json))]
        } text: { entries in
            guard !entries.isEmpty else {
                io.stdout.line("Nothing audited yet.")
                return
            }
            let rows = entries.map { entry in
                [
                    shortTime(entry.at), entry.actor, entry.action,
                    entry.action.contains("quarantine") ? entry.subject : String(entry.subject.prefix(12)),
                    entry.message,
                ]
            }
            io.stdout.write(TextTable.table(header: ["TIME", "WHO", "ACTION", "SUBJECT", "WHY"], rows: rows))
        }
    }
}
