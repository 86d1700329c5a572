import Core
import Engine
import Foundation
import HTTP

extension ServiceContext {
    /// The response for one ingested event: `201` (when `created`) or `200` with the result and
    /// any `links` and `extra` members, or the refusal with its status.
    public func respond(
        _ result: IngestResult, created: Bool = false, links: JSONObject = [:], extra: JSONObject = [:]
    ) -> HTTPResponse {
        guard result.status != .rejected else {
            let status = status(ofRejection: result.code)
            return .error(
                status, code: result.code ?? "rejected", message: result.message ?? "the event was refused",
                headers: status == 503 ? [("Retry-After", "1")] : [])
        }
        guard case .object(var object) = result.json else { return .json(result.json) }
        if !links.isEmpty { object["links"] = .object(links) }
        for (key, value) in extra { object[key] = value }
        return .json(.object(object), status: created && result.status == .accepted ? 201 : 200)
    }
}

/// Building the events that routes send through the ingest path.
public enum RouteEvents {
    /// An event id for an event the client gave none for.
    public static func newID() -> String { "api-" + UUID().uuidString.lowercased() }

    /// `text` percent-encoded as one path segment of a link (a `/`, `?` or `#` in an id stays
    /// inside it).
    public static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
