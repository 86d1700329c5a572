import FeatureKit
import Foundation
import TestSupport
import Testing

@testable import Console

/// Serving a system folder: only `.js`/`.css` files inside it, symlinks resolved first.
@Suite struct VendorFilesTests {
    @Test func servesFilesInsideAndRefusesEscapes() throws {
        let folder = try TemporaryDirectory(["root/lib/a.js": "a()", "root/lib/b.css": "b{}", "outside.js": "secret()"])
        let root = folder.file("root")
        try FileManager.default.createSymbolicLink(
            atPath: root + "/lib/escape.js", withDestinationPath: folder.file("outside.js"))
        try FileManager.default.createSymbolicLink(
            atPath: root + "/lib/inside.js", withDestinationPath: root + "/lib/a.js")
        try FileManager.default.createSymbolicLink(atPath: root + "/up", withDestinationPath: folder.path)
        let files = VendorFiles(root: root)

        let script = try files.response("lib", "a.js")
        #expect(script.status == 200 && String(decoding: script.body, as: UTF8.self) == "a()")
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(try files.response("lib", "b.css").header("Content-Type") == "text/css; charset=utf-8")
        #expect(try files.response("lib", "inside.js").status == 200, "a symlink that stays inside is served")

        func status(_ folder: String, _ file: String, in files: VendorFiles) -> Int {
            do throws(APIError) {
                return try files.response(folder, file).status
            } catch {
                #expect(error.code == "not_found")
                return error.status
            }
        }
        for (folder, file) in [
            ("lib", "escape.js"), ("up", "outside.js"), ("..", "outside.js"), ("lib", ".."), ("lib", "missing.js"),
            ("lib", "a.txt"), ("", "a.js"), ("lib/../..", "outside.js"), (".", "lib"),
        ] {
            #expect(status(folder, file, in: files) == 404, "\(folder)/\(file)")
        }
        #expect(
            status("lib", "a.js", in: VendorFiles(root: folder.file("absent"))) == 404,
            "a missing folder serves nothing")
    }
}
