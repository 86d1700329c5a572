import Core
import RevisionStore
import RuleEngine

/// What changes from one revision to another: per file (added, removed, changed with its
/// line diff) and per rule (added, removed, changed: its digest — kind, expressions,
/// fallback, budget, library — differs).
public struct RevisionDiff: Sendable {
    public struct FileChange: Sendable {
        public enum Kind: String, Sendable { case added, removed, changed }
        public var path: String
        public var kind: Kind
        /// The line diff with two lines of context around each change; nil when the file is too
        /// big to diff line by line (more than ``lineDiffLimit`` line pairs).
        public var lines: [TextDiff.Line]?
    }

    public var from: String
    public var to: String
    public var files: [FileChange]
    public var rulesAdded: [String]
    public var rulesRemoved: [String]
    public var rulesChanged: [String]

    /// Files whose line counts multiply past this are reported changed without a line diff.
    public static let lineDiffLimit = 4_000_000

    /// The diff of `from` into `to`; with both revisions' rule digests (id → digest, as their
    /// gate reports keep them), the per-rule part too.
    public init(from: RevisionFiles, to: RevisionFiles, digests: (before: [String: String], after: [String: String])?) {
        self.from = from.revision
        self.to = to.revision
        var files: [FileChange] = []
        for path in Set(from.files.keys).union(to.files.keys).sorted() {
            switch (from.files[path], to.files[path]) {
            case (nil, let text?): files.append(FileChange(path: path, kind: .added, lines: Self.diff("", text)))
            case (let text?, nil): files.append(FileChange(path: path, kind: .removed, lines: Self.diff(text, "")))
            case (let old?, let new?) where old != new:
                files.append(FileChange(path: path, kind: .changed, lines: Self.diff(old, new)))
            default: break
            }
        }
        self.files = files
        let before = digests?.before ?? [:]
        let after = digests?.after ?? [:]
        rulesAdded = after.keys.filter { before[$0] == nil }.sorted()
        rulesRemoved = before.keys.filter { after[$0] == nil }.sorted()
        rulesChanged = after.keys.filter { id in before[id].map { $0 != after[id] } ?? false }.sorted()
    }

    private static func diff(_ old: String, _ new: String) -> [TextDiff.Line]? {
        let oldLines = old.isEmpty ? 0 : old.split(separator: "\n", omittingEmptySubsequences: false).count
        let newLines = new.isEmpty ? 0 : new.split(separator: "\n", omittingEmptySubsequences: false).count
        guard max(oldLines, 1) * max(newLines, 1) <= lineDiffLimit else { return nil }
        return context(TextDiff.lines(expected: old, actual: new), around: 2)
    }

    /// Only the changed lines and `around` unchanged lines each side of them.
    private static func context(_ lines: [TextDiff.Line], around: Int) -> [TextDiff.Line] {
        let changed = lines.indices.filter { if case .same = lines[$0] { false } else { true } }
        var keep = Set<Int>()
        for index in changed { keep.formUnion(max(0, index - around)...min(lines.count - 1, index + around)) }
        var result: [TextDiff.Line] = []
        var previous: Int?
        for index in lines.indices where keep.contains(index) {
            if let previous, index > previous + 1 { result.append(.same("…")) }
            result.append(lines[index])
            previous = index
        }
        return result
    }

    /// Counts: what an audit line keeps.
    public var summary: JSON {
        func count(_ kind: FileChange.Kind) -> JSON { .number(Double(files.filter { $0.kind == kind }.count)) }
        return [
            "files": ["added": count(.added), "removed": count(.removed), "changed": count(.changed)],
            "rules": [
                "added": .array(rulesAdded.map(JSON.string)), "removed": .array(rulesRemoved.map(JSON.string)),
                "changed": .array(rulesChanged.map(JSON.string)),
            ],
        ]
    }

    public var json: JSON {
        [
            "from": .string(from), "to": .string(to), "change_counts": summary,
            "file_changes": .array(
                files.map { change in
                    [
                        "path": .string(change.path), "change": .string(change.kind.rawValue),
                        "diff_lines": change.lines.map { .array($0.map { .string($0.text) }) } ?? .null,
                    ]
                }),
        ]
    }

    /// As people read it: the rules changed, then each file's diff.
    public var text: String {
        var text = "revision \(from.prefix(12)) → \(to.prefix(12))\n"
        for (label, ids) in [("added", rulesAdded), ("removed", rulesRemoved), ("changed", rulesChanged)]
        where !ids.isEmpty {
            text += "rules \(label): \(ids.joined(separator: ", "))\n"
        }
        if files.isEmpty { text += "no file changes\n" }
        for change in files {
            text += "\n\(change.kind.rawValue) \(change.path)\n"
            guard let lines = change.lines else {
                text += "  (too large to diff line by line)\n"
                continue
            }
            for line in lines { text += line.text + "\n" }
        }
        return text
    }
}
