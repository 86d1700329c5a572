import Foundation

/// A fresh directory under the system's temporary folder, removed with everything in it when
/// released.
public final class TemporaryDirectory: Sendable {
    /// The directory's full path.
    public let path: String

    /// Creates the directory and writes `files` (path inside → text) into it.
    public init(_ files: [String: String] = [:]) throws {
        path = NSTemporaryDirectory() + "journey-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (relative, text) in files { try write(relative, text) }
    }

    /// Creates the directory as a copy of the folder at `source`, with everything in it.
    public init(copying source: String) throws {
        path = NSTemporaryDirectory() + "journey-tests-" + UUID().uuidString
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The full path of `relative` inside the directory.
    public func file(_ relative: String) -> String {
        path + "/" + relative
    }

    /// Writes `text` to `relative`, creating the folders on the way; returns the file's full path.
    @discardableResult
    public func write(_ relative: String, _ text: String) throws -> String {
        let full = file(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: full, atomically: true, encoding: .utf8)
        return full
    }

    /// Copies the file or folder at `source` to `relative`; returns the copy's full path.
    @discardableResult
    public func copy(_ source: String, to relative: String) throws -> String {
        let full = file(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source, toPath: full)
        return full
    }
}
