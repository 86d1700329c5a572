import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The libmicrohttpd adapter: turns connections into ``HTTPRequest``s for a handler and its
/// ``HTTPResponse``s back into bytes. All HTTP logic lives in the handler (a pure router).
///
/// One polling thread (libmicrohttpd's, with epoll) reads requests and calls the handler, so
/// the handler runs on one thread at a time and may own thread-bound things (libjq states).
/// Bodies beyond ``Options/maxBodyBytes`` get `413` before they are read when the client said
/// their length, else as soon as the limit is passed (the rest is discarded, up to a hard cap
/// past which the connection is closed).
///
/// A handler may answer ``HTTPResponse/deferred``: the connection is suspended and the polling
/// thread goes on reading other requests. The first request deferred since the last flush
/// leads: it is resumed at once, and when the thread comes back to it (after every request that
/// was ready meanwhile), `flush` answers every deferred request together, on the same thread;
/// the others are resumed with their answers. While other requests are still in progress (being
/// read, or their answers being sent: their clients are about to send the next ones) and the
/// group's bodies are smaller than ``Options/gatherBytes``, the leader goes round the loop
/// again, at most ``maxGatherPasses`` times, so that they join the group. So the requests that
/// arrive together are answered together (one store transaction for their events, say), with no
/// timer, and a lone request is answered at once.
///
/// `@unchecked Sendable`: `daemon` is only passed to libmicrohttpd calls that are safe from any
/// thread (quiesce, info, stop — the last one guarded by `stopped`).
public final class HTTPServer: @unchecked Sendable {
    /// Limits and timeouts.
    public struct Options: Sendable {
        /// Largest request body accepted (default 1 MiB).
        public var maxBodyBytes: Int = 1 << 20
        /// Seconds a connection may stay idle before it is closed.
        public var connectionTimeoutSeconds: Int = 30
        /// Memory per connection for the request line, headers and read buffer.
        public var connectionMemoryBytes: Int = 32 << 10
        /// Connections served at once; later ones wait in the socket's backlog.
        public var connectionLimit: Int = 1024
        /// Connections one client address may hold (0: no limit); more are closed at once.
        public var perAddressConnectionLimit: Int = 0
        /// Time a connection has to send a request's headers, from its opening or its previous
        /// response (zero: none; see ``ConnectionDeadlines``).
        public var headerTimeout: Duration = .zero
        /// Time a request has to send its body, from its headers (zero: none).
        public var bodyTimeout: Duration = .zero
        /// Idle connections (waiting for a request, or the rest of one) held at most: past it,
        /// the one idle the longest is shut down for each new one (0: no bound). Below
        /// ``connectionLimit``, so that the server always accepts (see ``ConnectionDeadlines``).
        public var idleConnectionLimit: Int = 0
        /// A group of deferred requests whose bodies reach this many bytes is flushed without
        /// waiting for requests still in progress (0: never waits for them): about 80 events
        /// of `POST /v1/events`. Small requests gain from sharing a flush; a group of large
        /// ones is big enough already, and waiting made 100-event requests 0.8× as fast
        /// (`journey-bench events`).
        public var gatherBytes: Int = 16 << 10
        /// Prefix of the request ids this server makes (the worker's name, say).
        public var requestIDPrefix: String = "r"

        public init() {}
    }

    /// What the handler is given besides the request.
    public typealias Handler = (HTTPRequest) -> HTTPResponse
    /// Answers every request deferred since the last flush, in the order they were deferred.
    public typealias Flush = () -> [HTTPResponse]

    /// Most extra rounds of the polling loop a leader waits for requests still in progress
    /// before its flush. Each round is one pass over the ready connections without blocking, so
    /// a stalled client (a body that stops halfway, an answer it does not read) costs a flush
    /// this many passes, never a wait.
    public static let maxGatherPasses = 16

    private let daemon: OpaquePointer
    private let context: Unmanaged<ServerContext>
    private let stopped = Mutex(false)

    /// Starts serving `socket` with `handler` and `flush` (called on the server's polling thread
    /// only); without `flush`, a deferred answer is an error.
    public init(
        socket: ListeningSocket, options: Options = Options(), handler: @escaping Handler, flush: Flush? = nil
    ) throws(SocketError) {
        let server = ServerContext(options: options, handler: handler, flush: flush)
        let context = Unmanaged.passRetained(server)
        var flags =
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue
            | MHD_USE_TURBO.rawValue
        if flush != nil { flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue }
        guard
            let daemon = journey_mhd_start(
                UInt32(flags), socket.descriptor, UInt32(options.connectionTimeoutSeconds),
                options.connectionMemoryBytes, UInt32(options.connectionLimit),
                UInt32(max(options.perAddressConnectionLimit, 0)), accessHandler, context.toOpaque(),
                requestCompleted, context.toOpaque(), connectionNotified, context.toOpaque())
        else {
            server.deadlines?.stop()
            context.release()
            throw SocketError(message: "libmicrohttpd could not start on \(socket.host):\(socket.port)")
        }
        self.daemon = daemon
        self.context = context
    }

    /// Requests being read or answered right now.
    public var activeRequests: Int { context.takeUnretainedValue().active.load(ordering: .acquiring) }

    /// Open connections (idle keep-alive ones included).
    public var openConnections: Int { Int(journey_mhd_connection_count(daemon)) }

    /// Connections shut down because they did not send a request's headers or body in time.
    public var connectionsPastDeadline: Int {
        context.takeUnretainedValue().deadlines?.shutDown.load(ordering: .relaxed) ?? 0
    }

    /// Idle connections shut down to make room for new ones (past ``Options/idleConnectionLimit``).
    public var connectionsShed: Int {
        context.takeUnretainedValue().deadlines?.shed.load(ordering: .relaxed) ?? 0
    }

    /// Stops accepting connections (others sharing the socket go on accepting); requests in
    /// progress finish, and their responses ask the client to close the connection.
    public func quiesce() {
        context.takeUnretainedValue().draining.store(true, ordering: .releasing)
        _ = MHD_quiesce_daemon(daemon)
    }

    /// Whether ``stop(grace:)`` was called: requests in progress finish, no new one starts.
    public var isStopping: Bool { stopped.withLock { $0 } }

    /// Quiesces, waits up to `grace` for requests in progress, then closes every connection.
    /// The listening socket stays open: it belongs to whoever opened it.
    public func stop(grace: Duration = .seconds(10)) {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        quiesce()
        let clock = ContinuousClock()
        let deadline = clock.now + grace
        while activeRequests > 0, clock.now < deadline {
            usleep(5_000)
        }
        // A deferred request is answered within one flush; none may stay suspended (MHD would
        // not close its connection).
        let server = context.takeUnretainedValue()
        let flushDeadline = clock.now + .seconds(30)
        while server.deferredCount.load(ordering: .acquiring) > 0, clock.now < flushDeadline {
            usleep(1_000)
        }
        server.stopping.store(true, ordering: .releasing)
        MHD_stop_daemon(daemon)
        context.takeUnretainedValue().deadlines?.stop()
        context.release()
    }

    deinit {
        stop(grace: .zero)
    }
}

/// What the C callbacks reach through their context pointer.
///
/// `@unchecked Sendable`: `handler`, `flush`, `waiting` and `nextRequest` are used only on
/// libmicrohttpd's single polling thread; the atomics are read by other threads.
final class ServerContext: @unchecked Sendable {
    let options: HTTPServer.Options
    let handler: HTTPServer.Handler
    let flush: HTTPServer.Flush?
    let active = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)
    /// Requests deferred and not flushed yet (`waiting.count`, for other threads).
    let deferredCount = Atomic<Int>(0)
    /// Set just before the daemon stops: connections closed then hand nothing on.
    let stopping = Atomic<Bool>(false)
    var nextRequest: UInt64 = 0
    /// The requests deferred since the last flush, in order; the first leads.
    var waiting: [(connection: OpaquePointer, state: RequestState)] = []
    /// The body bytes of the requests in `waiting`.
    var waitingBytes = 0
    /// The header and body deadlines (nil when both are off).
    let deadlines: ConnectionDeadlines?

    init(options: HTTPServer.Options, handler: @escaping HTTPServer.Handler, flush: HTTPServer.Flush?) {
        self.options = options
        self.handler = handler
        self.flush = flush
        deadlines = ConnectionDeadlines(
            header: options.headerTimeout, body: options.bodyTimeout, idleLimit: options.idleConnectionLimit)
    }

    func makeRequestID() -> String {
        nextRequest += 1
        return options.requestIDPrefix + "-" + String(nextRequest)
    }
}

/// One request in progress: its body so far.
final class RequestState {
    var id = ""
    var body: [UInt8] = []
    /// Bytes of body seen beyond the limit (discarded).
    var discarded = 0
    /// The body is not kept: it is over the limit, or the request was refused from its header.
    var discardsBody = false
    var answered = false
    /// Deferred by the handler: waiting for its flush, or resumed with its answer.
    var deferred = false
    /// The deferred request that runs the next flush when it is resumed.
    var leads = false
    /// Rounds of the polling loop this leader went for requests still in progress.
    var gatherPasses = 0
    /// The answer a flush gave it, queued when it is resumed.
    var response: HTTPResponse?
    /// The request is over (answered, or its connection closed).
    var completed = false
}

/// Past this many discarded bytes, an oversized body is not read further: the connection closes.
private let discardCap = 64 << 20

private let accessHandler: MHD_AccessHandlerCallback = {
    contextPointer, connection, url, method, _, uploadData, uploadSize, requestPointer in
    guard let contextPointer, let connection, let uploadSize, let requestPointer else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(contextPointer).takeUnretainedValue()

    guard let existing = requestPointer.pointee else {
        // First call: only the header has been read.
        let state = RequestState()
        if let id = headerValue(connection, "X-Request-ID"), (1...128).contains(id.utf8.count),
            id.utf8.allSatisfy({ $0 > 32 && $0 < 127 })
        {
            state.id = id
        } else {
            state.id = context.makeRequestID()
        }
        requestPointer.pointee = Unmanaged.passRetained(state).toOpaque()
        _ = context.active.wrappingAdd(1, ordering: .relaxed)
        context.deadlines?.headersRead(connection)
        if let refusal = framingRefusal(connection) {
            state.discardsBody = true
            state.answered = true
            return queue(refusal, on: connection, context: context, id: state.id)
        }
        if let length = headerValue(connection, "Content-Length").flatMap({ Int($0) }),
            length > context.options.maxBodyBytes
        {
            state.discardsBody = true
            state.answered = true
            return queue(tooLarge(context.options.maxBodyBytes), on: connection, context: context, id: state.id)
        }
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()

    let size = uploadSize.pointee
    if size > 0 {
        uploadSize.pointee = 0
        if state.discardsBody {
            state.discarded += size
            return state.discarded > discardCap ? .NO : .YES
        }
        if state.body.count + size > context.options.maxBodyBytes {
            state.discardsBody = true
            state.discarded = state.body.count + size
            state.body = []
            return .YES
        }
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
            }
        }
        return .YES
    }

    // The whole request has been read.
    if state.answered { return resumed(state, on: connection, context: context) }
    state.answered = true
    context.deadlines?.requestRead(connection)
    if state.discardsBody {
        return queue(tooLarge(context.options.maxBodyBytes), on: connection, context: context, id: state.id)
    }
    var request = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: "")
    guard let url, let path = String(validatingCString: url) else {
        return queue(
            .error(400, code: "invalid_path", message: "the request path is not valid UTF-8"), on: connection,
            context: context, id: state.id)
    }
    request.path = path
    request.headers = values(connection, .HEADER_KIND)
    var query: [(name: String, value: String)] = []
    var invalidQuery = false
    collect(connection, .GET_ARGUMENT_KIND) { name, value in
        guard let name, let decodedName = String(validatingCString: name) else {
            invalidQuery = true
            return
        }
        guard let value else {
            query.append((decodedName, ""))
            return
        }
        guard let decodedValue = String(validatingCString: value) else {
            invalidQuery = true
            return
        }
        query.append((decodedName, decodedValue))
    }
    if invalidQuery {
        return queue(
            .error(400, code: "invalid_query", message: "the query string is not valid UTF-8"), on: connection,
            context: context, id: state.id)
    }
    request.query = query
    request.body = state.body
    state.body = []
    request.id = state.id
    return answer(
        context.handler(request), bodyBytes: request.body.count, state: state, on: connection, context: context)
}

private let requestCompleted: MHD_RequestCompletedCallback = { contextPointer, connection, requestPointer, _ in
    guard let contextPointer, let requestPointer, let existing = requestPointer.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeRetainedValue()
    requestPointer.pointee = nil
    let context = Unmanaged<ServerContext>.fromOpaque(contextPointer).takeUnretainedValue()
    state.completed = true
    if state.leads, !context.stopping.load(ordering: .acquiring) { handOffLead(from: state, context: context) }
    _ = context.active.wrappingSubtract(1, ordering: .releasing)
    if let connection { context.deadlines?.answered(connection) }
}

/// A connection opened or closed: its deadlines start or end.
private let connectionNotified: MHD_NotifyConnectionCallback = { contextPointer, connection, _, code in
    guard let contextPointer, let connection else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(contextPointer).takeUnretainedValue()
    guard let deadlines = context.deadlines else { return }
    if code.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
        deadlines.opened(connection, socket: journey_mhd_connection_fd(connection))
    } else {
        deadlines.closed(connection)
    }
}

private func tooLarge(_ limit: Int) -> HTTPResponse {
    .error(
        413, code: "body_too_large", message: "the request body is larger than the limit of \(limit) bytes",
        headers: [("Connection", "close")])
}

/// Queues `response`, with the request's id as `X-Request-ID` unless the handler set one.
func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: ServerContext, id: String)
    -> MHD_Result
{
    var response = response
    if response.header("X-Request-ID") == nil { response.headers.append(("X-Request-ID", id)) }
    let made = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers {
        _ = MHD_add_response_header(made, name, value)
    }
    if context.draining.load(ordering: .acquiring), response.header("Connection") == nil {
        _ = MHD_add_response_header(made, "Connection", "close")
    }
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// A request whose framing is ambiguous is refused before its body is read (and its connection
/// closed): a header folded onto a continuation line (obs-fold: libmicrohttpd would read
/// `Transfer-Encoding:` + ` chunked` as another header, where a proxy may unfold it),
/// `Transfer-Encoding` beside `Content-Length` (a proxy in front may read the body one way and
/// this server another: request smuggling), or `Content-Length`, `Transfer-Encoding` or
/// `Authorization` given more than once.
private func framingRefusal(_ connection: OpaquePointer) -> HTTPResponse? {
    if journey_mhd_has_folded_header(connection) != 0 {
        return .error(
            400, code: "folded_header",
            message:
                "a header is continued on a line that starts with a space or a tab (obs-fold); send each header on one line",
            headers: [("Connection", "close")])
    }
    var counts: [String: Int] = [:]
    collect(connection, .HEADER_KIND) { name, _ in
        guard let name else { return }
        let key = String(cString: name).lowercased()
        if singleHeaders.contains(key) { counts[key, default: 0] += 1 }
    }
    if let repeated = singleHeaders.sorted().first(where: { (counts[$0] ?? 0) > 1 }) {
        return .error(
            400, code: "duplicate_header", message: "the `\(repeated)` header is given more than once; send it once",
            headers: [("Connection", "close")])
    }
    if counts["transfer-encoding"] != nil, counts["content-length"] != nil {
        return .error(
            400, code: "ambiguous_length",
            message: "the request has both Transfer-Encoding and Content-Length; send one of them",
            headers: [("Connection", "close")])
    }
    return nil
}

/// Headers a request may carry at most once.
private let singleHeaders: Set<String> = ["authorization", "content-length", "transfer-encoding"]

private func headerValue(_ connection: OpaquePointer, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
}

private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
    var result: [String: String] = [:]
    collect(connection, kind) { name, value in
        guard let name else { return }
        result[String(cString: name).lowercased()] = value.map { String(cString: $0) } ?? ""
    }
    return result
}

/// Calls `body` for every value of `kind` (raw C strings: names or values may be invalid UTF-8).
private func collect(
    _ connection: OpaquePointer, _ kind: MHD_ValueKind,
    _ body: (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void
) {
    withoutActuallyEscaping(body) { body in
        var box = body
        withUnsafeMutablePointer(to: &box) { pointer in
            _ = MHD_get_connection_values(
                connection, kind,
                { boxPointer, _, name, value in
                    let body = boxPointer!.assumingMemoryBound(
                        to: ((UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void).self)
                    body.pointee(name, value)
                    return .YES
                }, pointer)
        }
    }
}
