import Store

/// Every table of a store with its columns and its rows, as text (numbers written alike on
/// both backends, to twelve significant digits), rows sorted: two stores hold the same data when their dumps are equal.
public struct StoreDump: Equatable, CustomStringConvertible {
    public struct Table: Equatable {
        public var columns: [String]
        public var rows: [[String]]
    }

    public var tables: [String: Table]

    /// What a habit tracker keeps that follows the order its check-ins arrived in, not the set
    /// of them: the user's habit version at its last check-in (a counter of arrivals) and the
    /// streaks it keeps (known or not, by which changes came in time order).
    public static let habitArrivalColumns: Set<String> = [
        "habit_trackers.checkins_version", "habit_trackers.streak_date", "habit_trackers.streak_days",
        "habit_trackers.prior_streak_date", "habit_trackers.prior_streak_days",
    ]

    /// Dumps `store` (on backend `backend`: `sqlite` or `postgres`), leaving out the columns
    /// named in `excluding` (row ids, arrival times: what differs with the order of arrival)
    /// and the migrations table.
    public init(_ store: any StoreConnection, backend: String, excluding: Set<String> = []) throws {
        let columnsSQL =
            backend == "sqlite"
            ? "SELECT name FROM pragma_table_info(?) ORDER BY cid"
            : """
            SELECT column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
            """
        tables = [:]
        for table in try store.tableNames() where table != "schema_migrations" && table != "migrations" {
            let columns = try store.rows(columnsSQL, [.text(table)]) { $0.text(0) ?? "" }
                .filter { !excluding.contains($0) && !excluding.contains(table + "." + $0) }
            guard !columns.isEmpty else { continue }
            let rows = try store.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table)") { row in
                (0..<Int32(columns.count)).map { column in
                    guard let text = row.text(column) else { return "NULL" }
                    // Twelve significant digits: sums kept in another order differ in the last bits.
                    return Double(text).map { String(format: "%.12g", $0) } ?? text
                }
            }
            tables[table] = Table(columns: columns, rows: rows.sorted { $0.lexicographicallyPrecedes($1) })
        }
    }

    /// How many rows all tables hold.
    public var rowCount: Int { tables.values.reduce(0) { $0 + $1.rows.count } }

    /// Where `other` differs, table by table: rows only one of the two holds (a few of each).
    public func differences(from other: StoreDump) -> [String] {
        var lines: [String] = []
        for name in Set(tables.keys).union(other.tables.keys).sorted() {
            let mine = tables[name]
            let theirs = other.tables[name]
            if mine?.columns != theirs?.columns {
                lines.append("\(name): columns \(mine?.columns ?? []) vs \(theirs?.columns ?? [])")
                continue
            }
            let a = mine?.rows ?? []
            let b = theirs?.rows ?? []
            guard a != b else { continue }
            let short = { (row: [String]) in row.map { $0.count > 80 ? $0.prefix(77) + "…" : $0 } }
            let onlyHere = a.filter { !b.contains($0) }.map(short)
            let onlyThere = b.filter { !a.contains($0) }.map(short)
            lines.append(
                "\(name): \(a.count) rows vs \(b.count); only in the first \(onlyHere.prefix(3)), only in the second \(onlyThere.prefix(3))"
            )
        }
        return lines
    }

    public var description: String {
        tables.keys.sorted().map { "\($0): \(tables[$0]!.rows.count) rows" }.joined(separator: ", ")
    }
}
