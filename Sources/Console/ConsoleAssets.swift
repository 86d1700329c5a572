import FeatureKit
import Foundation
import HTTP

/// The console's own files, bundled with the module (`Assets/`), and the headers every console
/// file is served with.
enum ConsoleAssets {
    /// The page's policy: only this origin's scripts, styles and API; no inline script or style,
    /// no framing, no forms posted anywhere.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    /// The files under `/console/`, with their media types.
    static let files: [String: String] = [
        "app.css": "text/css; charset=utf-8",
        "api.js": "text/javascript; charset=utf-8",
        "app.js": "text/javascript; charset=utf-8",
        "chart.js": "text/javascript; charset=utf-8",
        "drafts.js": "text/javascript; charset=utf-8",
        "editor.js": "text/javascript; charset=utf-8",
        "experiment-forms.js": "text/javascript; charset=utf-8",
        "experiments.js": "text/javascript; charset=utf-8",
        "explain.js": "text/javascript; charset=utf-8",
        "flows.js": "text/javascript; charset=utf-8",
        "forms.css": "text/css; charset=utf-8",
        "history.js": "text/javascript; charset=utf-8",
        "params.js": "text/javascript; charset=utf-8",
        "rules.js": "text/javascript; charset=utf-8",
        "texts.js": "text/javascript; charset=utf-8",
        "words.js": "text/javascript; charset=utf-8",
    ]

    /// `GET /console`: the page (never cached, so a new build is picked up at once).
    static func page() -> HTTPResponse {
        guard let bytes = read("index.html") else {
            return APIError(500, "console_missing", "the console's index.html is not in the Console bundle").response
        }
        return response(bytes, type: "text/html; charset=utf-8", cache: "no-store")
    }

    /// `GET /console/{file}`: one of ``files``; anything else is 404.
    static func asset(_ name: String) throws(APIError) -> HTTPResponse {
        guard let type = files[name], let bytes = read(name) else {
            throw APIError.notFound("not_found", "the console has no file \(name)")
        }
        return response(bytes, type: type, cache: "no-cache")
    }

    /// A console file with the console's headers.
    static func response(_ body: [UInt8], type: String, cache: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", type), ("Content-Security-Policy", contentSecurityPolicy),
                ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                ("Cache-Control", cache),
            ],
            body: body)
    }

    private static func read(_ name: String) -> [UInt8]? {
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        guard
            let url = Bundle.module.url(
                forResource: String(name[..<dot]), withExtension: String(name[dot...].dropFirst()),
                subdirectory: "Assets"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return [UInt8](data)
    }
}
