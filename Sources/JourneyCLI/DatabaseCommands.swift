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
        discussion: "Applies the numbered migrations not yet recorded in the database, each in its own transaction.",
        options: [CommonOptions.database, CommonOptions.format])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        try CommonOptions.expectNoArguments(arguments, spec: spec)
        do {
            let store = try CommonOptions.openStore(arguments, spec: spec, migrate: false)
            let applied = try store.migrate()
            let version = try store.schemaVersion()
            if CommonOptions.isJSON(arguments, spec: spec) {
                let report: JSONObject = [
                    "path": .string(store.location), "schema_version": .number(Double(version)),
                    "applied": .array(applied.map { .number(Double($0)) }),
                ]
                io.stdout.line(JSON.object(report).compactText)
            } else if applied.isEmpty {
                io.stdout.line("\(store.location) is up to date (schema version \(version))")
            } else {
                io.stdout.line(
                    "\(store.location): applied migration\(applied.count == 1 ? "" : "s") \(applied.map(String.init).joined(separator: ", ")); schema version \(version)"
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
        overview: "Show the store's schema version, size and rows per table.",
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
            let store = try location.open(migrate: false)
            let statistics = try store.statistics()
            if CommonOptions.isJSON(arguments, spec: spec) {
                var tables = JSONObject()
                for (name, rows) in statistics.tables { tables[name] = .number(Double(rows)) }
                let report: JSONObject = [
                    "path": .string(statistics.path), "schema_version": .number(Double(statistics.schemaVersion)),
                    "bytes": .number(Double(statistics.bytes)), "tables": .object(tables),
                ]
                io.stdout.line(JSON.object(report).compactText)
            } else {
                io.stdout.line(
                    "\(statistics.path): schema version \(statistics.schemaVersion), \(ByteCount.format(statistics.bytes))"
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
