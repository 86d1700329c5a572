import FeatureKit
import Foundation
import HTTP

/// Files of one system folder (CodeMirror from Debian), served read-only: only `.js` and
/// `.css` files that are inside the folder once every symlink is resolved.
struct VendorFiles: Sendable {
    /// The folder, as configured.
    let root: String

    static let types = ["js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8"]

    /// The file at `segments` under ``root``; 404 for a segment that is empty, `.`, `..` or
    /// holds a slash, another extension, a file outside the folder, or a missing folder.
    func response(_ segments: String...) throws(APIError) -> HTTPResponse {
        let relative = segments.joined(separator: "/")
        let missing = APIError.notFound("not_found", "no vendor file codemirror/\(relative)")
        guard
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") && !$0.contains("\0") }),
            let type = Self.types[(segments.last ?? "").split(separator: ".").last.map(String.init) ?? ""],
            let base = Self.resolved(root), let file = Self.resolved(base + "/" + relative),
            file.hasPrefix(base + "/"),
            let data = FileManager.default.contents(atPath: file)
        else { throw missing }
        return ConsoleAssets.response([UInt8](data), type: type, cache: "max-age=3600")
    }

    /// The path with every symlink resolved, when it exists.
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }  // realpath allocates the result; we own it
        return String(cString: real)
    }
}
