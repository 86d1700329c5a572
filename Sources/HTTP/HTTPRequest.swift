/// One HTTP request, as the router sees it: no sockets, no C types.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, … as sent.
    public var method: String
    /// The path, percent-decoded, without the query (`/v1/dogs/q-123/today`).
    public var path: String
    /// Query parameters in the order sent (a name may repeat).
    public var query: [(name: String, value: String)]
    /// Header fields by lowercased name (the last one wins when a name repeats).
    public var headers: [String: String]
    /// The body as received (at most the server's body limit).
    public var body: [UInt8]
    /// The request's id: the client's `X-Request-ID` when it sent a sane one, else one made here.
    public var id: String

    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
        body: [UInt8] = [], id: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.id = id
    }

    /// The first query parameter called `name`.
    public func query(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The header field `name` (any case).
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
