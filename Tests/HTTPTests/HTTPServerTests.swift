import Core
import Foundation
import HTTP
import Synchronization
import TestSupport
import Testing

/// The libmicrohttpd adapter on a real loopback socket, with an echoing handler.
@Suite struct HTTPServerTests {
    static func echo(_ request: HTTPRequest) -> HTTPResponse {
        .json([
            "method": .string(request.method), "path": .string(request.path),
            "query": .array(request.query.map { .array([.string($0.name), .string($0.value)]) }),
            "content_type": request.header("Content-Type").map(JSON.string) ?? .null,
            "body_bytes": .number(Double(request.body.count)),
            "body": .string(String(decoding: request.body, as: UTF8.self)),
            "id": .string(request.id),
        ])
    }

    func withServer(
        maxBody: Int = 1024, _ body: (HTTPServer, HTTPClient) throws -> Void
    ) throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        var options = HTTPServer.Options()
        options.maxBodyBytes = maxBody
        options.requestIDPrefix = "test"
        let server = try HTTPServer(socket: socket, options: options, handler: Self.echo)
        defer { server.stop(grace: .seconds(1)) }
        try body(server, HTTPClient(port: socket.port, timeoutSeconds: 10))
    }

    func json(_ response: HTTPClient.Response) throws -> JSON {
        try JSONParser().parse(response.body)
    }

    @Test func requestReachesTheHandlerWhole() throws {
        try withServer { _, client in
            let response = try client.send(
                "POST", "/v1/echo/caf%C3%A9?a=1&b=two%20words&a=3", headers: ["Content-Type": "application/json"],
                body: Array(#"{"x":1}"#.utf8))
            #expect(response.status == 200)
            let echoed = try json(response)
            #expect(echoed["path"] == "/v1/echo/café")
            #expect(echoed["query"] == [["a", "1"], ["b", "two words"], ["a", "3"]])
            #expect(echoed["body"] == #"{"x":1}"#)
            #expect(echoed["content_type"] == "application/json")
            #expect(response.headers["x-request-id"]?.hasPrefix("test-") == true)
        }
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() throws {
        try withServer { _, client in
            for index in 0..<50 {
                let response = try client.send("GET", "/n/\(index)")
                #expect(try json(response)["path"] == .string("/n/\(index)"))
            }
        }
    }

    @Test func clientRequestIDIsKeptWhenSane() throws {
        try withServer { _, client in
            let kept = try client.send("GET", "/", headers: ["X-Request-ID": "abc-123"])
            #expect(kept.headers["x-request-id"] == "abc-123")
            let long = String(repeating: "x", count: 300)
            let replaced = try client.send("GET", "/", headers: ["X-Request-ID": long])
            #expect(replaced.headers["x-request-id"] != long)
        }
    }

    @Test func bodyAtTheLimitIsRead() throws {
        try withServer(maxBody: 1000) { _, client in
            let response = try client.send("POST", "/", body: [UInt8](repeating: 65, count: 1000))
            #expect(response.status == 200)
            #expect(try json(response)["body_bytes"] == 1000)
        }
    }

    @Test func declaredOversizedBodyGets413WithoutBeingRead() throws {
        try withServer(maxBody: 1000) { _, client in
            let response = try client.send("POST", "/", body: [UInt8](repeating: 65, count: 50 << 20))
            #expect(response.status == 413)
            #expect(try json(response)["code"] == "body_too_large")
        }
    }

    @Test func chunkedOversizedBodyGets413() throws {
        try withServer(maxBody: 1000) { _, client in
            var request = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<4 { request += Array("200\r\n".utf8) + [UInt8](repeating: 66, count: 512) + [13, 10] }
            request += Array("0\r\n\r\n".utf8)
            let response = try client.exchange(request)
            #expect(response.status == 413)
        }
    }

    /// Ambiguous framing is refused before the handler (request smuggling behind a proxy).
    static let ambiguous: [(String, String)] = [
        (
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
            "ambiguous_length"
        ),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "duplicate_header"),
        ("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n", "duplicate_header"),
        // A header continued on the next line (obs-fold, RFC 9112 §5.2): any header, any fold.
        (
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding:\r\n chunked\r\n\r\n{}",
            "folded_header"
        ),
        (
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \r\n chunked\r\nContent-Length: 2\r\n\r\n{}",
            "folded_header"
        ),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\t2\r\n\r\n{}", "folded_header"),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n b\r\n\r\n", "folded_header"),
        ("GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: a\r\n\tb\r\n  c\r\nAccept: */*\r\n\r\n", "folded_header"),
        ("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n token\r\n\r\n", "folded_header"),
        ("GET / HTTP/1.1\nHost: x\nX-Note: a\n b\n\n", "folded_header"),
    ]

    @Test(arguments: ambiguous)
    func ambiguousFramingIs400(request: String, code: String) throws {
        try withServer { _, client in
            let response = try client.exchange(Array(request.utf8))
            #expect(response.status == 400, "\(String(decoding: response.body, as: UTF8.self))")
            #expect(try json(response)["code"] == .string(code))
        }
    }

    /// Spaces and tabs around a value, and empty values, are not folding.
    @Test func whitespaceAroundValuesIsServed() throws {
        try withServer { _, client in
            let request = "GET / HTTP/1.1\r\nHost: x\r\nX-A:   \t spaced \t \r\nX-Empty:\r\nX-B:\tb\r\nX-C: \r\n\r\n"
            let response = try client.exchange(Array(request.utf8))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        }
    }

    @Test func invalidUTF8PathIs400() throws {
        try withServer { _, client in
            let response = try client.send("GET", "/v1/%FF%FE")
            #expect(response.status == 400)
            #expect(try json(response)["code"] == "invalid_path")
        }
    }

    /// A request in progress when the server is told to stop (its handler still running: it
    /// answers only once the stop has begun) gets its answer.
    @Test func stopWaitsForRequestsInProgress() throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        let stopping = Atomic<Bool>(false)
        let server = try HTTPServer(socket: socket) { request in
            try? waitUntil("the test to stop the server") { stopping.load(ordering: .acquiring) }
            return .text("slow done")
        }
        let port = socket.port
        let done = Mutex<String?>(nil)
        let thread = Thread {
            let text = (try? HTTPClient(port: port).send("GET", "/slow"))?.text ?? "no answer"
            done.withLock { $0 = text }
        }
        thread.start()
        try waitUntil("the request in progress") { server.activeRequests == 1 }
        let stopper = Thread {
            server.stop(grace: .seconds(60))
        }
        stopper.start()
        try waitUntil("the stop begun") { server.isStopping }
        stopping.store(true, ordering: .releasing)
        try waitUntil("the answer of the request in progress") { done.withLock { $0 } != nil }
        try waitUntil("the stop's end") { stopper.isFinished }
        #expect(done.withLock { $0 } == "slow done")
    }
}
