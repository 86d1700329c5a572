/// Why a revision cannot be made, stored or found.
public enum RevisionError: Error, Sendable, CustomStringConvertible {
    /// One problem with one file of a revision.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    case invalidFiles([Problem])
    /// No revision has this id (or unique prefix of one).
    case unknown(String)
    /// A prefix names several revisions.
    case ambiguous(String, [String])

    public var description: String {
        switch self {
        case .invalidFiles(let problems):
            return "the files cannot be a revision:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
        case .unknown(let id):
            return "no revision `\(id)` (see 'journey revisions')"
        case .ambiguous(let id, let matches):
            return
                "`\(id)` names \(matches.count) revisions (\(matches.map { String($0.prefix(12)) }.joined(separator: ", "))); give more of it"
        }
    }

    /// The stable code APIs answer with.
    public var code: String {
        switch self {
        case .invalidFiles: "invalid_files"
        case .unknown: "unknown_revision"
        case .ambiguous: "ambiguous_revision"
        }
    }
}
