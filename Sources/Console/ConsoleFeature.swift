import Core
import FeatureKit
import Foundation

/// The product managers' console, served at `/console`: static pages (HTML, CSS, JavaScript)
/// that are a client of the documented admin API, and CodeMirror from Debian's
/// `libjs-codemirror` under `/console/vendor/codemirror/`.
public struct ConsoleFeature: Feature {
    /// Where Debian's `libjs-codemirror` keeps CodeMirror 5.
    public static let codeMirrorDirectory = "/usr/share/javascript/codemirror"

    let vendor: VendorFiles

    /// - Parameter codeMirrorDirectory: the folder `/console/vendor/codemirror/` serves from.
    public init(codeMirrorDirectory: String = ConsoleFeature.codeMirrorDirectory) {
        vendor = VendorFiles(root: codeMirrorDirectory)
    }

    public var name: String { "console" }

    /// Its routes' part of the OpenAPI document (the page itself), bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    public var routes: [FeatureRoute] {
        let vendor = vendor
        return [
            FeatureRoute("GET", "/console", access: .open) { _, _, _ in ConsoleAssets.page() },
            FeatureRoute("GET", "/console/{file}", access: .open) { _, _, parameters throws(APIError) in
                try ConsoleAssets.asset(parameters.values["file"] ?? "")
            },
            FeatureRoute("GET", "/console/vendor/codemirror/{a}/{b}", access: .open) {
                _, _, parameters throws(APIError) in
                try vendor.response(parameters.values["a"] ?? "", parameters.values["b"] ?? "")
            },
            FeatureRoute("GET", "/console/vendor/codemirror/{a}/{b}/{c}", access: .open) {
                _, _, parameters throws(APIError) in
                try vendor.response(
                    parameters.values["a"] ?? "", parameters.values["b"] ?? "", parameters.values["c"] ?? "")
            },
        ]
    }
}
