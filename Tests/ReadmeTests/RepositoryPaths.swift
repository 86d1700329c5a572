import Foundation

/// Where the repository and the built `journey` executable are.
enum RepositoryPaths {
    /// The repository root: this file is `<root>/Tests/ReadmeTests/RepositoryPaths.swift`.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The Markdown files whose examples and links the tests check, relative to the root:
    /// README.md first, then every other `*.md` outside hidden folders (`.build`, `.git`), by
    /// path — `docs/` and any other, so that no file's examples are left out by where it is.
    static func markdownFiles() throws -> [String] {
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else {
            throw SandboxError("cannot list the files under \(root)")
        }
        for case let relative as String in walker {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                walker.skipDescendants()
                continue
            }
            if name.hasSuffix(".md"), relative != "README.md" { found.append(relative) }
        }
        return ["README.md"] + found.sorted()
    }

    /// The folders each console block gets a fresh copy of.
    static let copiedFolders = ["Rules", "Plugins", "examples"]

    /// The directory holding the built `journey` executable: `swift build --build-tests` puts it
    /// beside the test bundle, so the bundle's own directory is looked in first, then
    /// `<root>/.build/debug`.
    /// - Throws: `MissingExecutable`, listing where it looked, when no `journey` is there.
    static func buildDirectory() throws -> String {
        var candidates: [String] = []
        if let testBundle = CommandLine.arguments.first, !testBundle.isEmpty {
            // `…/debug/JourneyPackageTests.xctest` (Linux: the executable; macOS: its bundle
            // directory, whose executable is …/Contents/MacOS/JourneyPackageTests).
            var directory = URL(fileURLWithPath: testBundle).resolvingSymlinksInPath().deletingLastPathComponent()
            while directory.path != "/", directory.pathComponents.contains(where: { $0.hasSuffix(".xctest") }) {
                directory.deleteLastPathComponent()
            }
            candidates.append(directory.path)
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().path)
        candidates.append(root + "/.build/debug")
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/journey") }) {
            return found
        }
        throw MissingExecutable(lookedIn: candidates)
    }
}

/// The `journey` executable is not built where the tests look for it.
struct MissingExecutable: Error, CustomStringConvertible {
    /// The directories looked in.
    var lookedIn: [String]

    var description: String {
        "the journey executable is not built (looked for `journey` in \(lookedIn.joined(separator: ", "))); "
            + "run `swift build --build-tests` before `swift test --skip-build`"
    }
}
