import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The regular files under a rules or plugins folder (relative, sorted; hidden files and
/// editor leftovers skipped, symbolic links not followed), and the names that cannot be
/// read as UTF-8, which a file's path must be: those are reported, never skipped in silence.
public struct FolderListing: Sendable, Equatable {
    public var files: [String] = []
    /// Relative paths whose name is not UTF-8, with each byte that is not shown as `\xHH`.
    public var invalidNames: [String] = []

    /// Lists `root` (nothing when it cannot be opened).
    public init(root: String) {
        walk(root, prefix: "")
        files.sort()
        invalidNames.sort()
    }

    private mutating func walk(_ directory: String, prefix: String) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if bytes == [46] || bytes == [46, 46] { continue }  // . and ..
            guard let name = String(validating: bytes, as: UTF8.self) else {
                invalidNames.append(prefix + Self.escaped(bytes))
                continue
            }
            if Self.isSkipped(name) { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: walk(path, prefix: prefix + name + "/")
            case S_IFREG: files.append(prefix + name)
            default: continue
            }
        }
    }

    /// Hidden files and folders, and editor leftovers (`x~`, `.x.swp`, `#x#`).
    static func isSkipped(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix("~") || name.hasSuffix(".swp") || name.hasPrefix("#")
    }

    /// `bytes` as text, each byte outside printable ASCII as `\xHH`.
    static func escaped(_ bytes: [UInt8]) -> String {
        bytes.map { (32..<127).contains($0) && $0 != 92 ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }
            .joined()
    }
}
