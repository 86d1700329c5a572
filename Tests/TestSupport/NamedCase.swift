import Core
import Testing

/// One case of a case file: a mapping with a text `name`, as JSON. Tests show it by its name.
public struct NamedCase: Sendable, CustomTestStringConvertible {
    /// The case's `name`.
    public let name: String
    /// The whole case, `name` included.
    public let json: JSON

    /// A case called `name` whose content is `json`.
    public init(name: String, json: JSON) {
        self.name = name
        self.json = json
    }

    /// The value of `key` in the case.
    public subscript(key: String) -> JSON? { json[key] }

    /// The case's name, for test reports.
    public var testDescription: String { name }
}
