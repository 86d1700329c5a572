import YAML

/// A case file that cannot be used: the file, where in it (when known), and what is wrong.
public struct CaseFileError: Error, Sendable, CustomStringConvertible {
    /// The file's full path.
    public var path: String
    /// Where in the file, when the problem has a place.
    public var mark: YAMLMark?
    /// What is wrong, for a person.
    public var problem: String

    /// A problem of the file at `path`, at `mark` when given.
    public init(_ problem: String, in path: String, at mark: YAMLMark? = nil) {
        self.path = path
        self.mark = mark
        self.problem = problem
    }

    /// `path:line:column: problem`, or `path: problem` without a place.
    public var description: String {
        guard let mark else { return "\(path): \(problem)" }
        return "\(path):\(mark.line):\(mark.column): \(problem)"
    }
}
