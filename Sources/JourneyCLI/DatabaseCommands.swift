import CommandKit
import Core
import FeatureKit
import Foundation
import JQ
import Store
import StoreBackends

/// `journey db migrate`: bring the store's schema up to date.
enum DatabaseMigrateCommand: Command {
    static let spec = CommandSpec(
        name: "journey db migrate",
        overview: "Create the store or bring its schema up to date.",
        discussion: """
            Applies the migrations not yet recorded in the store, each in its own transaction, in
            order: the engine's own (core.1, core.2…), the served rule set's (revisions.1), then each
            feature's (journey.1, habits.1…) in the order features are listed. A store made when
            migrations were numbered (1–18) has what it applied recorded by name; nothing runs again.
            """,
        options: [CommonOptions.database, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        do {
            let store = try CommonOptions.openStore(arguments, spec: spec, engine: engine, migrate: false)
            let applied = try store.migrate()
            let count = try store.appliedMigrations().count
            if CommonOptions.isJSON(arguments, spec: spec) {
                let report: JSONObject = [
                    "path": .string(store.location), "migrations": .number(Double(count)),
                    "applied": .array(applied.map(JSON.string)),
                ]
                io.stdout.line(JSON.object(report).compactText)
            } else if applied.isEmpty {
                io.stdout.line("\(store.location) is up to date (\(DatabaseStatsCommand.migrations(count)))")
            } else {
                io.stdout.line(
                    "\(store.location): applied \(applied.joined(separator: ", ")); \(DatabaseStatsCommand.migrations(count))"
                )
            }
            return .success
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
    }
}

/// `journey db stats`: what the store holds.
enum DatabaseStatsCommand: Command {
    static let spec = CommandSpec(
        name: "journey db stats",
        overview: "Show the store's migrations, size and rows per table.",
        options: [CommonOptions.database, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        let location = try CommonOptions.storeLocation(arguments, spec: spec)
        guard location.exists else {
            io.stderr.line("Error: no store at \(location) (create one with 'journey db migrate' or 'journey ingest')")
            return .failure
        }
        do {
            let store = try location.open(schema: engine.schema, migrate: false)
            let statistics = try store.statistics()
            if CommonOptions.isJSON(arguments, spec: spec) {
                var tables = JSONObject()
                for (name, rows) in statistics.tables { tables[name] = .number(Double(rows)) }
                let report: JSONObject = [
                    "path": .string(statistics.path), "migrations": .array(statistics.migrations.map(JSON.string)),
                    "pending": .array(statistics.pending.map(JSON.string)), "bytes": .number(Double(statistics.bytes)),
                    "tables": .object(tables),
                ]
                io.stdout.line(JSON.object(report).compactText)
            } else {
                let pending =
                    statistics.pending.isEmpty
                    ? "" : " (pending: \(statistics.pending.joined(separator: ", ")); run 'journey db migrate')"
                io.stdout.line(
                    "\(statistics.path): \(migrations(statistics.migrations.count))\(pending), \(ByteCount.format(statistics.bytes))"
                )
                io.stdout.write(
                    TextTable.table(
                        header: ["TABLE", "ROWS"], rows: statistics.tables.map { [$0.name, String($0.rows)] }))
            }
            return .success
        } catch {
            io.stderr.line("Error: \(error)")
            return .failure
        }
    }
}

extension DatabaseStatsCommand {
    /// "1 migration", "27 migrations".
    static func migrations(_ count: Int) -> String {
        "\(count) migration\(count == 1 ? "" : "s")"
    }
}
