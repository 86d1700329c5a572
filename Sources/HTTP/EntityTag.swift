import Core

/// Conditional GETs: a weak entity tag (`W/"…"`) of what a response shows, and `304 Not
/// Modified` with no body for a client that sent that tag in `If-None-Match` — so an app
/// polling a screen pays for a body only when it changed.
public enum EntityTag {
    /// The weak tag of `bytes`: their 64-bit FNV-1a hash in hex (a change detector, not a
    /// secret).
    public static func weak(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "W/\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether `request`'s `If-None-Match` names `tag` or is `*` (compared weakly, as GET does).
    public static func isKnown(_ tag: String, to request: HTTPRequest) -> Bool {
        guard let field = request.header("If-None-Match") else { return false }
        let opaque = strip(tag)
        return field.split(separator: ",").contains { item in
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let candidate = String(item.drop(while: blank).reversed().drop(while: blank).reversed())
            return candidate == "*" || strip(candidate) == opaque
        }
    }

    private static func strip(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}

extension HTTPResponse {
    /// A JSON response tagged by `tagged` (what the tag covers: `value` without the fields that
    /// move on their own, such as a countdown), or 304 with the tag alone when `request`
    /// already has it.
    public static func json(_ value: JSON, taggedBy tagged: JSON, for request: HTTPRequest) -> HTTPResponse {
        var bytes: [UInt8] = []
        tagged.appendCompactText(to: &bytes)
        let tag = EntityTag.weak(of: bytes)
        if EntityTag.isKnown(tag, to: request) { return HTTPResponse(status: 304, headers: [("ETag", tag)]) }
        return .json(value, headers: [("ETag", tag)])
    }
}
