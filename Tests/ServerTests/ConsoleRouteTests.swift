import Foundation
import Testing

/// The console's static routes through the service's router: content types, the page's
/// security headers, and 404 for unknown files and paths that try to leave CodeMirror's folder.
@Suite struct ConsoleRouteTests {
    static let shared = SharedService()
    static let codeMirror = FileManager.default.fileExists(
        atPath: "/usr/share/javascript/codemirror/lib/codemirror.js")

    @Test func thePageIsHTMLWithAStrictPolicyAndNoCaching() throws {
        try Self.shared.use { harness in
            let page = harness.send("GET", "/console")
            #expect(page.status == 200, "\(page.text.prefix(200))")
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            let policy = page.header("Content-Security-Policy") ?? ""
            for directive in ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"] {
                #expect(policy.contains(directive), "CSP lacks \(directive): \(policy)")
            }
            #expect(!policy.contains("unsafe-inline"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Cache-Control") == "no-store")
            #expect(page.text.contains("<script src=\"/console/app.js\" defer></script>"))
            #expect(!page.text.contains("style=\""), "no inline style attributes under the CSP")
            #expect(harness.send("GET", "/console/").status == 200)
            #expect(harness.send("GET", "/console", admin: true).status == 200, "public, with or without a token")
        }
    }

    @Test(arguments: [
        ("app.js", "text/javascript; charset=utf-8"), ("app.css", "text/css; charset=utf-8"),
        ("editor.js", "text/javascript; charset=utf-8"),
    ])
    func assetsHaveTheirTypes(file: String, type: String) throws {
        try Self.shared.use { harness in
            let response = harness.send("GET", "/console/\(file)")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == type)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Content-Security-Policy") != nil)
            #expect(!response.body.isEmpty)
        }
    }

    @Test(arguments: [
        "/console/index.html", "/console/nope.js", "/console/openapi.json", "/console/..",
        "/console/vendor/codemirror/../../../../etc/passwd", "/console/vendor/codemirror/lib/../../../etc/passwd",
        "/console/vendor/codemirror/../lib/codemirror.js", "/console/vendor/codemirror/lib/..",
        "/console/vendor/codemirror/lib/nothing.js", "/console/vendor/codemirror/lib/codemirror.txt",
        "/console/vendor/codemirror/mode/yaml/../../lib/codemirror.js",
        "/console/vendor/codemirror/..%2f..%2f..%2fetc/passwd.js",
    ])
    func unknownFilesAndTraversalAre404(path: String) throws {
        try Self.shared.use { harness in
            // The router sees the path percent-decoded, as libmicrohttpd gives it.
            let decoded = path.removingPercentEncoding ?? path
            let response = harness.send("GET", decoded)
            #expect(response.status == 404, "\(decoded): \(response.status) \(response.text.prefix(120))")
            #expect(response.json["code"] == "not_found", "\(decoded)")
        }
    }

    @Test(.enabled(if: codeMirror, "libjs-codemirror is not installed (scripts/deps installs it)"))
    func codeMirrorIsServedFromTheSystemFolder() throws {
        try Self.shared.use { harness in
            let script = harness.send("GET", "/console/vendor/codemirror/lib/codemirror.js")
            #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
            let system = try Data(
                contentsOf: URL(fileURLWithPath: "/usr/share/javascript/codemirror/lib/codemirror.js"))
            #expect(script.body == [UInt8](system))
            let mode = harness.send("GET", "/console/vendor/codemirror/mode/yaml/yaml.js")
            #expect(mode.status == 200)
            let style = harness.send("GET", "/console/vendor/codemirror/lib/codemirror.css")
            #expect(style.status == 200 && style.header("Content-Type") == "text/css; charset=utf-8")
        }
    }
}
