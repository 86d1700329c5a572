import Core

/// JSON kept as text in a column, on every backend.
public enum StoredJSON {
    /// The value `text` holds; `null` for a NULL column.
    public static func parse(_ text: String?) throws -> JSON {
        guard let text else { return .null }
        return try JSONParser().parse(text)
    }
}
