import Core
import Engine
import Foundation
import HTTP

extension ServiceContext {
    /// The response for one ingested event: `201` (when `created`) or `200` with the result and
    /// any `links` and `extra` members, or the refusal with its status. A refusal for a field of
    /// the event that came from the body (`fieldsFrom`: its pointer in the event, then in the
    /// body, such as `("/payload", "")`) names the body's field, in the message and in `errors`;
    /// any other refusal names the path parameter `otherwise` (the block whose state refused a
    /// step), so that no refusal leaves `errors` empty. The effects' texts kept as keys (a
    /// plugin's interpretation, a reminder's push) are written in the locale of the event's
    /// user for `request` (``texts(for:user:)``).
    public func respond(
        _ result: IngestResult, to request: HTTPRequest, created: Bool = false, links: JSONObject = [:],
        extra: JSONObject = [:],
        fieldsFrom body: [(event: String, body: String)] = [], otherwise parameter: String? = nil
    ) -> HTTPResponse {
        guard result.status != .rejected else {
            let status = status(ofRejection: result.code)
            // A field of the event the route made from the body is named as the body has it.
            if let field = result.field,
                let moved = body.lazy.compactMap({ field.moved(from: $0.event, to: $0.body) }).first
            {
                let message = result.message ?? moved.description
                return .error(
                    status, code: result.code ?? "rejected",
                    message: message.contains("`\(field.field)`") ? moved.description : message,
                    errors: [APIError.entry(moved)])
            }
            // Not the body's fault: the state of what the path names refused it.
            let message = result.message ?? "the event was refused"
            let errors =
                status < 500 ? parameter.map { [APIError.parameterEntry($0, .invalid, message)] } ?? [] : []
            return .error(
                status, code: result.code ?? "rejected", message: message, errors: errors,
                headers: status == 503 ? [("Retry-After", "1")] : [])
        }
        let result = result.rendered { texts(for: request, user: result.userID) }
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

extension IngestResult {
    /// The result with the deferred texts of its effects (``DeferredText``: a plugin's
    /// interpretation, a reminder's push, a card's label) written in `texts`' locale; `texts`
    /// is asked for only when there is one. The stored result keeps the keys, so that a
    /// duplicate is answered in its reader's locale of then.
    public func rendered(_ texts: () -> RequestTexts) -> IngestResult {
        guard effects.contains(where: DeferredText.contains) else { return self }
        let chosen = texts()
        var result = self
        result.effects = effects.map { DeferredText.rendered($0, texts: chosen) }
        return result
    }
}
