import Features
import Foundation
import Store
import StoreBackends
import TestSupport

/// Stores as engines made them when the migrations were one numbered list (versions 1–18 in
/// `schema_migrations`), built from that list's SQL (`numbered-schema.sql`, never edited).
enum NumberedStore {
    /// The numbered migrations: version, name and SQL (SQLite's dialect), in order.
    static let versions: [(version: Int, name: String, sql: String)] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/numbered-schema.sql"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var versions: [(Int, String, String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let header = line.wholeMatch(of: #/-- version (\d+): (.*)/#) {
                versions.append((Int(header.output.1) ?? 0, String(header.output.2), ""))
            } else if !versions.isEmpty {
                versions[versions.count - 1].2 += line + "\n"
            }
        }
        return versions
    }()

    /// The applied time recorded for `version` (a migration run again would be recorded now).
    static func appliedAt(_ version: Int) -> Double { Double(1_000 + version) }

    /// Builds the numbered schema through `version` at `location` as the numbered engines did
    /// (each version in its own transaction, recorded in `schema_migrations`), and returns the
    /// store opened with today's schema, not migrated.
    static func build(at location: String, through version: Int = 18) throws -> any StoreConnection {
        let store = try StoreLocation(location).open(schema: Features.all.schema, migrate: false)
        try store.execute(
            store.dialect(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at REAL NOT NULL
                )
                """))
        for numbered in versions where numbered.version <= version {
            try store.transaction {
                try store.execute(store.dialect(numbered.sql))
                try store.run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.integer(Int64(numbered.version)), .text(numbered.name), .real(appliedAt(numbered.version))])
            }
        }
        return store
    }

    /// The statements of `sql`, each trimmed, in order.
    static func statements(_ sql: String) -> [String] {
        sql.split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}

/// A store's schema as text lines, sorted, without the migration tables: two stores with equal
/// shapes have the same tables, columns, types, defaults, constraints and indexes.
enum SchemaShape {
    static func of(_ store: any StoreConnection, backend: String) throws -> [String] {
        let lines: [String]
        if backend == "sqlite" {
            lines = try store.rows(
                """
                SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master
                WHERE name NOT LIKE 'sqlite_%' AND tbl_name NOT IN ('migrations', 'schema_migrations')
                """
            ) { $0.text(0) ?? "" }
        } else {
            let schema = try store.first("SELECT current_schema()", []) { $0.text(0) ?? "" } ?? ""
            let columns = try store.rows(
                """
                SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
                    || coalesce(column_default, '') || ' ' || is_identity
                FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name NOT IN ('migrations', 'schema_migrations')
                """
            ) { $0.text(0) ?? "" }
            let constraints = try store.rows(
                """
                SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
                WHERE connamespace = current_schema()::regnamespace
                    AND conrelid::regclass::text NOT IN ('migrations', 'schema_migrations')
                """
            ) { $0.text(0) ?? "" }
            let indexes = try store.rows(
                """
                SELECT indexdef FROM pg_indexes
                WHERE schemaname = current_schema() AND tablename NOT IN ('migrations', 'schema_migrations')
                """
            ) { ($0.text(0) ?? "").replacingOccurrences(of: " \(schema).", with: " ") }
            lines = columns + constraints + indexes
        }
        return lines.sorted()
    }
}
