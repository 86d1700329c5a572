/// The SQL of a one-row insert with `?` placeholders, as the stores write it:
/// `INSERT INTO table (a, b) VALUES (?, ?)`, optionally followed by
/// `ON CONFLICT (a) DO NOTHING` or `ON CONFLICT (a) DO UPDATE …` (an update with no placeholder).
/// Names are plain (letters, digits, `_`; nothing quoted or qualified by a schema); keywords are
/// upper case. Any other SQL, `RETURNING` or several rows included, is not one.
///
/// Read by what needs to know which row a statement writes: the PostgreSQL connection merges
/// runs of plain ones into multi-row inserts, and a transaction's kept reads are forgotten only
/// when the row may be one they read.
public struct InsertStatement: Equatable, Sendable {
    /// The table written.
    public let table: String
    /// The columns bound, in the order of the placeholders.
    public let columns: [String]
    /// The `ON CONFLICT` clause; nil for a plain insert (the row is inserted, or it fails).
    public let onConflict: OnConflict?

    /// `sql` read as an insert with no `ON CONFLICT` clause, else nil.
    public static func plain(_ sql: String) -> InsertStatement? {
        InsertStatement(sql).flatMap { $0.onConflict == nil ? $0 : nil }
    }

    /// What an insert does with a row that conflicts on `target`'s columns.
    public enum OnConflict: Equatable, Sendable {
        /// Leaves it, inserting nothing.
        case doNothing(target: [String])
        /// Updates it (the update's own text is not read).
        case doUpdate(target: [String])
    }

    /// Nil unless `sql` is such an insert.
    public init?(_ sql: String) {
        guard !sql.contains(";") else { return nil }
        var text = Scanner(sql)
        guard text.keyword("INSERT"), text.keyword("INTO"), let table = text.name(),
            let columns = text.list(of: { $0.name() }),
            text.keyword("VALUES"),
            let placeholders = text.list(of: { $0.symbol("?") ? "?" : nil }),
            placeholders.count == columns.count
        else { return nil }
        var onConflict: OnConflict?
        if text.keyword("ON") {
            guard text.keyword("CONFLICT"), let target = text.list(of: { $0.name() }), text.keyword("DO") else {
                return nil
            }
            if text.keyword("NOTHING") {
                onConflict = .doNothing(target: target)
            } else if text.keyword("UPDATE") {
                // The rest is the update, which binds nothing (every placeholder is a column's).
                guard sql.filter({ $0 == "?" }).count == columns.count else { return nil }
                text.skipToEnd()
                onConflict = .doUpdate(target: target)
            } else {
                return nil
            }
        }
        guard text.isAtEnd else { return nil }
        self.table = table
        self.columns = columns
        self.onConflict = onConflict
    }

    /// Reads the text left to right, skipping whitespace before each token.
    private struct Scanner {
        private var rest: Substring

        init(_ text: String) { rest = Substring(text) }

        var isAtEnd: Bool {
            mutating get {
                skipWhitespace()
                return rest.isEmpty
            }
        }

        mutating func skipToEnd() { rest = rest[rest.endIndex...] }

        private mutating func skipWhitespace() { rest = rest.drop { $0.isWhitespace } }

        /// `word`, ended by what is not part of a name.
        mutating func keyword(_ word: String) -> Bool {
            skipWhitespace()
            guard rest.hasPrefix(word) else { return false }
            let after = rest.dropFirst(word.count)
            if let next = after.first, Self.isNameCharacter(next) { return false }
            rest = after
            return true
        }

        mutating func symbol(_ character: Character) -> Bool {
            skipWhitespace()
            guard rest.first == character else { return false }
            rest = rest.dropFirst()
            return true
        }

        mutating func name() -> String? {
            skipWhitespace()
            let name = rest.prefix(while: Self.isNameCharacter)
            guard !name.isEmpty else { return nil }
            rest = rest[name.endIndex...]
            return String(name)
        }

        /// `( item, item, … )`, at least one item.
        mutating func list(of item: (inout Scanner) -> String?) -> [String]? {
            guard symbol("(") else { return nil }
            var items: [String] = []
            repeat {
                guard let next = item(&self) else { return nil }
                items.append(next)
            } while symbol(",")
            return symbol(")") ? items : nil
        }

        private static func isNameCharacter(_ character: Character) -> Bool {
            character == "_" || (character.isASCII && (character.isLetter || character.isNumber))
        }
    }
}
