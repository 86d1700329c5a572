import Core

/// How a rule set's revision is computed from its files: SHA-256 over each `Rules/` file, then
/// each `Plugins/` file, in path order, each as `Root/relative NUL bytes NUL`. The loader, the
/// service's snapshots and stored revisions all name a set of files this one way.
public struct RevisionHasher {
    private var hasher = SHA256()

    public init() {}

    /// Adds one file: `root` is `Rules` or `Plugins`, `relative` its path below that folder.
    public mutating func add<Bytes: Sequence>(root: String, relative: String, _ bytes: Bytes)
    where Bytes.Element == UInt8 {
        hasher.update("\(root)/\(relative)\u{0}")
        hasher.update(bytes)
        hasher.update([0])
    }

    /// The revision, as lowercase hex.
    public mutating func finalize() -> String { hasher.finalizeHex() }
}
