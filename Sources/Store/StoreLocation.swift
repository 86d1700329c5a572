import Foundation

/// Where a store lives, as `--db` names it: a file path (or `sqlite:PATH`) for the embedded
/// SQLite store, `:memory:` for a private one, or a PostgreSQL server: a `postgresql://` URL
/// or libpq's `key=value` form, each with several hosts when wanted
/// (`postgresql://a:5432,b:5432/journey?target_session_attrs=read-write`, or `host=a,b
/// port=5432,5432 dbname=journey target_session_attrs=read-write`: libpq connects to the first
/// host that accepts writes, so a promoted standby is found by the next connection).
public struct StoreLocation: Sendable, Equatable, CustomStringConvertible {
    public enum Backend: Sendable, Equatable {
        case sqlite(path: String)
        case postgres(url: String)
    }

    public let backend: Backend
    public let description: String

    /// The embedded default: `journey.sqlite` in the working directory.
    public static let `default` = StoreLocation(backend: .sqlite(path: "journey.sqlite"), description: "journey.sqlite")

    private init(backend: Backend, description: String) {
        self.backend = backend
        self.description = description
    }

    /// Reads `text` as `--db` gives it.
    /// - Throws: ``StoreLocationError`` for an empty location, an unknown URL scheme or a
    ///   `sqlite:` URL without a path.
    public init(_ text: String) throws(StoreLocationError) {
        description = text
        if text.isEmpty { throw StoreLocationError(location: text, problem: "it is empty") }
        if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") || Self.isKeywordForm(text) {
            backend = .postgres(url: text)
            return
        }
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else { throw StoreLocationError(location: text, problem: "it names no file") }
            backend = .sqlite(path: path)
            return
        }
        if let colon = text.firstIndex(of: ":"), text[..<colon].count > 1,
            text[text.index(after: colon)...].hasPrefix("//")
        {
            let scheme = text[..<colon]
            throw StoreLocationError(
                location: text,
                problem: "`\(scheme):` is not a store this engine knows (a file path, sqlite:PATH or postgresql://…)")
        }
        backend = .sqlite(path: text)
    }

    /// Whether the store is there already: the file for SQLite (`:memory:` never is); a
    /// server is assumed to be.
    public var exists: Bool {
        switch backend {
        case .sqlite(let path): path != ":memory:" && FileManager.default.fileExists(atPath: path)
        case .postgres: true
        }
    }
}

extension StoreLocation {
    /// The location as logs and command lines may show it: a PostgreSQL URL without its
    /// password (of the user part, or a `password=` parameter).
    public var withoutPassword: String {
        switch backend {
        case .sqlite: description
        case .postgres(let url): Self.withoutPassword(url)
        }
    }

    /// The password a PostgreSQL URL carries (percent-decoded), if any: given to another
    /// process in its environment (`PGPASSWORD`, which libpq reads) rather than on its command
    /// line, where every user of the machine could read it.
    public var password: String? {
        guard case .postgres(let url) = backend else { return nil }
        if let word = Self.keywordPassword(in: url) {
            var value = url[word].dropFirst("password=".count)
            if value.hasPrefix("'"), value.hasSuffix("'"), value.count >= 2 { value = value.dropFirst().dropLast() }
            return value.replacingOccurrences(of: "\\'", with: "'").replacingOccurrences(of: "\\\\", with: "\\")
        }
        if let query = url.firstIndex(of: "?"),
            let parameter = url[url.index(after: query)...].split(separator: "&")
                .first(where: Self.isPasswordParameter)
        {
            return String(parameter.dropFirst("password=".count)).removingPercentEncoding
        }
        guard let password = Self.userPassword(in: url) else { return nil }
        return String(url[password].dropFirst()).removingPercentEncoding
    }
}

extension StoreLocation {
    /// `url` without the password of its user part or a `password=` parameter.
    public static func withoutPassword(_ url: String) -> String {
        var text = url
        if let password = keywordPassword(in: text) {
            text.removeSubrange(password)
            return text.split(separator: " ").joined(separator: " ")
        }
        if let password = userPassword(in: text) { text.removeSubrange(password) }
        if let query = text.firstIndex(of: "?") {
            let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false)
                .filter { !isPasswordParameter($0) }
            text = String(text[..<query]) + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
        }
        return text
    }

    /// libpq's connection keywords that may begin a `key=value` location.
    static let connectionKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "sslmode",
        "target_session_attrs", "application_name", "options", "connect_timeout",
    ]

    /// Whether `text` is libpq's `key=value` form: its first word is `KEYWORD=` of a
    /// connection keyword (a file path never begins so).
    static func isKeywordForm(_ text: String) -> Bool {
        let trimmed = text.drop { $0 == " " }
        guard let equals = trimmed.firstIndex(of: "=") else { return false }
        return connectionKeywords.contains(trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The `password=VALUE` word of a `key=value` location (VALUE may be quoted with `'`), if any.
    static func keywordPassword(in text: String) -> Range<String.Index>? {
        guard !text.contains("://") else { return nil }
        var index = text.startIndex
        while index < text.endIndex {
            while index < text.endIndex, text[index] == " " { index = text.index(after: index) }
            let start = index
            var quoted = false
            while index < text.endIndex, quoted || text[index] != " " {
                if text[index] == "\\", text.index(after: index) < text.endIndex {
                    index = text.index(after: index)
                } else if text[index] == "'" {
                    quoted.toggle()
                }
                index = text.index(after: index)
            }
            if text[start..<index].lowercased().hasPrefix("password=") { return start..<index }
        }
        return nil
    }

    /// Where the user part's `:password` is in `url` (from the colon to the `@`), if it has one.
    static func userPassword(in url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else {
            return nil
        }
        return colon..<at
    }

    /// Whether a query parameter is `password=…`.
    static func isPasswordParameter(_ parameter: Substring) -> Bool {
        parameter.lowercased().hasPrefix("password=")
    }
}

/// A `--db` value that names no store.
public struct StoreLocationError: Error, CustomStringConvertible {
    public var location: String
    public var problem: String
    public var description: String { "`\(location)` is not a store location: \(problem)" }
}
