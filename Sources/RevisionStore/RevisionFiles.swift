import Core
import Foundation
import RuleEngine

/// The files of a rule set as a revision holds them: `Rules/…` and `Plugins/…` paths with
/// their text, and the revision id they make — the same SHA-256 a ``RuleSet`` loaded from them
/// reports as its revision, so a stored revision and the rules it serves share one name.
public struct RevisionFiles: Sendable, Equatable {
    /// Text by path (`Rules/journey/catalog.yaml`, `Plugins/self_screen.yaml`).
    public private(set) var files: [String: String]

    /// The two folders a revision holds.
    public static let roots = ["Rules", "Plugins"]
    /// The most a revision may hold (files, bytes): a rule set is small; this bounds uploads.
    public static let limits = (files: 2_000, bytes: 8 << 20)

    /// Files checked one by one (see ``problems(in:)``); refused with every problem.
    public init(_ files: [String: String]) throws(RevisionError) {
        let problems = Self.problems(in: files)
        guard problems.isEmpty else { throw RevisionError.invalidFiles(problems) }
        self.files = files
    }

    /// Reads the rules folder (and the plugins folder) as the loader would: every regular file
    /// but hidden ones and editor leftovers.
    public init(rulesDirectory: String, pluginsDirectory: String?) throws(RevisionError) {
        var files: [String: String] = [:]
        var problems: [RevisionError.Problem] = []
        let folders = [("Rules", rulesDirectory)] + (pluginsDirectory.map { [("Plugins", $0)] } ?? [])
        for (root, directory) in folders {
            let absolute = RuleSetLoader.absolutePath(directory)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                if root == "Rules" {
                    problems.append(.init(path: directory, message: "the rules directory does not exist"))
                }
                continue
            }
            let listing = FolderListing(root: absolute)
            for name in listing.invalidNames {
                problems.append(.init(path: "\(root)/\(name)", message: "the file name is not UTF-8"))
            }
            for relative in listing.files {
                guard let data = FileManager.default.contents(atPath: absolute + "/" + relative),
                    let text = String(data: data, encoding: .utf8)
                else {
                    problems.append(.init(path: "\(root)/\(relative)", message: "not UTF-8 text"))
                    continue
                }
                files["\(root)/\(relative)"] = text
            }
        }
        problems += Self.problems(in: files)
        guard problems.isEmpty else { throw RevisionError.invalidFiles(problems) }
        self.files = files
    }

    /// The revision id: SHA-256 over each `Rules/` file then each `Plugins/` file, in path
    /// order, as `path NUL bytes NUL` (what ``RuleSetLoader`` hashes).
    public var revision: String {
        var hasher = RevisionHasher()
        for root in Self.roots {
            for (relative, text) in relativeFiles(in: root) {
                hasher.add(root: root, relative: relative, text.utf8)
            }
        }
        return hasher.finalize()
    }

    /// The files under `root` (`Rules`), by path relative to it, sorted as the loader sorts.
    public func relativeFiles(in root: String) -> [(String, String)] {
        files.compactMap { path, text in
            path.hasPrefix(root + "/") ? (String(path.dropFirst(root.count + 1)), text) : nil
        }.sorted { $0.0 < $1.0 }
    }

    /// Writes the files under `directory` (`directory/Rules/…`, `directory/Plugins/…`; both
    /// folders exist afterwards, empty or not).
    public func write(to directory: String) throws {
        for root in Self.roots {
            try FileManager.default.createDirectory(atPath: directory + "/" + root, withIntermediateDirectories: true)
        }
        for (path, text) in files {
            let target = directory + "/" + path
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        }
    }

    /// What is wrong with a set of files as a revision: each path must be `Rules/…` or
    /// `Plugins/…`, relative, without `.`/`..`/empty segments, hidden names or editor leftovers
    /// (the loader would skip them), control characters or backslashes; within the limits.
    public static func problems(in files: [String: String]) -> [RevisionError.Problem] {
        var problems: [RevisionError.Problem] = []
        if files.count > limits.files {
            problems.append(.init(path: "", message: "\(files.count) files; a revision holds at most \(limits.files)"))
        }
        let bytes = files.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        if bytes > limits.bytes {
            problems.append(.init(path: "", message: "\(bytes) bytes; a revision holds at most \(limits.bytes)"))
        }
        if !files.keys.contains(where: { $0.hasPrefix("Rules/") }) {
            problems.append(.init(path: "Rules/", message: "a revision needs at least one file under Rules/"))
        }
        for path in files.keys.sorted() {
            if let message = pathProblem(path) { problems.append(.init(path: path, message: message)) }
        }
        return problems
    }

    private static func pathProblem(_ path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let root = segments.first, roots.contains(String(root)), segments.count >= 2 else {
            return "a path starts with Rules/ or Plugins/"
        }
        guard path.utf8.count <= 512 else { return "a path is at most 512 bytes" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) {
            return "a path has no control characters or backslashes"
        }
        for segment in segments.dropFirst() {
            if segment.isEmpty || segment == "." || segment == ".." { return "a path has no empty, `.` or `..` parts" }
            if segment.hasPrefix(".") || segment.hasSuffix("~") || segment.hasSuffix(".swp") || segment.hasPrefix("#") {
                return "hidden files and editor leftovers (`.x`, `x~`, `x.swp`, `#x`) are not part of a revision"
            }
        }
        return nil
    }
}
