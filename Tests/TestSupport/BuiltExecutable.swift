import Foundation

/// The executables the package builds, for tests that run one in a process of its own.
public enum BuiltExecutable {
    /// The path of the executable `name`: beside the running test bundle, or else in
    /// `.build/debug`.
    /// - Throws: ``NotBuilt`` with the places looked in.
    public static func path(_ name: String) throws(NotBuilt) -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
                .path,
            Repository.root + "/.build/debug/" + name,
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw NotBuilt(name: name, candidates: candidates)
        }
        return found
    }

    /// An executable that is in none of the places it is built to.
    public struct NotBuilt: Error, Sendable, CustomStringConvertible {
        /// The executable's name.
        public var name: String
        /// The paths looked in.
        public var candidates: [String]

        /// Names the executable and the places looked in.
        public var description: String { "the \(name) executable is not built (looked in \(candidates))" }
    }
}
