import Core
import Foundation
import HTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Slow and many connections: read deadlines for headers and bodies, and the per-address
/// connection limit, on a real loopback socket.
@Suite struct ConnectionGuardTests {
    func withServer(
        header: Duration = .zero, body: Duration = .zero, perAddress: Int = 0, idle: Int = 0,
        _ test: (HTTPServer, Int) throws -> Void
    ) throws {
        let socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        defer { socket.close() }
        var options = HTTPServer.Options()
        options.headerTimeout = header
        options.bodyTimeout = body
        options.perAddressConnectionLimit = perAddress
        options.connectionLimit = 8
        options.idleConnectionLimit = idle
        let server = try HTTPServer(socket: socket, options: options) { _ in .text("ok") }
        defer { server.stop(grace: .seconds(1)) }
        try test(server, socket.port)
    }

    static let slowSenders: [(String, String, Duration, Duration, Bool)] = [
        ("headers trickled, a 1 s header deadline", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ", .seconds(1), .zero, true),
        ("headers trickled, no deadline", "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ", .zero, .zero, false),
        (
            "a body trickled, a 1 s body deadline", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
            .zero, .seconds(1), true
        ),
        (
            "a body trickled, only a header deadline", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n",
            .seconds(1), .zero, false
        ),
    ]

    /// A client sending a byte every 200 ms is never idle; past its deadline it is closed.
    @Test(arguments: slowSenders)
    func slowSendersAreClosedAtTheirDeadline(
        _ name: String, _ start: String, _ header: Duration, _ body: Duration, _ closed: Bool
    ) throws {
        try withServer(header: header, body: body) { _, port in
            let connection = try RawConnection(port: port)
            connection.send(Array(start.utf8))
            var closedAfter: Double?
            let began = Date()
            while Date().timeIntervalSince(began) < 3.5 {
                connection.send([UInt8(ascii: "a")])
                if connection.isClosedByServer(waiting: 0.2) {
                    closedAfter = Date().timeIntervalSince(began)
                    break
                }
            }
            #expect((closedAfter != nil) == closed, "\(name): closed after \(closedAfter ?? -1) s")
        }
    }

    /// A keep-alive connection must send its next request within the header deadline too.
    @Test func anIdleKeepAliveConnectionIsClosedAtTheHeaderDeadline() throws {
        try withServer(header: .seconds(1)) { server, port in
            let client = HTTPClient(port: port, timeoutSeconds: 5)
            #expect(try client.send("GET", "/").status == 200, "a request in time is answered")
            let connection = try RawConnection(port: port)
            connection.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(connection.isClosedByServer(waiting: 0.5) == false, "answered, kept alive")
            #expect(connection.isClosedByServer(waiting: 3), "closed once idle past the deadline")
            #expect(server.connectionsPastDeadline >= 1)
        }
    }

    /// One address holding its limit cannot open more; another address is still served.
    @Test func oneAddressCannotHoldMoreThanItsLimit() throws {
        try withServer(perAddress: 2) { _, port in
            let held = try (0..<2).map { _ in try RawConnection(port: port, from: "127.0.0.2") }
            for connection in held { connection.send(Array("GET / HTTP/1.1\r\n".utf8)) }
            let third = try RawConnection(port: port, from: "127.0.0.2")
            third.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(third.isClosedByServer(waiting: 2), "over the limit: closed")
            #expect(held.allSatisfy { !$0.isClosedByServer(waiting: 0.1) }, "the two within it stay")
            #expect(try HTTPClient(port: port, timeoutSeconds: 5).send("GET", "/").status == 200)
        }
    }

    /// Past the idle bound, each new connection sheds the one idle the longest, so the server
    /// never reaches its connection limit and a new client is served at once.
    @Test func theLongestIdleConnectionsAreShedForNewOnes() throws {
        try withServer(idle: 4) { server, port in
            var held: [RawConnection] = []
            for index in 0..<6 {
                let connection = try RawConnection(port: port, from: "127.0.0.\(2 + index)")
                connection.send(Array("GET / HTTP/1.1\r\nX-Slow: ".utf8))
                held.append(connection)
                // In order: each is accepted before the next one opens.
                let accepted = waitUntil { server.openConnections + server.connectionsShed >= index + 1 }
                #expect(accepted, "connection \(index) was not accepted")
            }
            #expect(held.prefix(2).allSatisfy { $0.isClosedByServer(waiting: 2) }, "the two idle longest are shed")
            #expect(held.suffix(4).allSatisfy { !$0.isClosedByServer(waiting: 0.1) }, "the four newest stay")
            #expect(try HTTPClient(port: port, timeoutSeconds: 5).send("GET", "/").status == 200)
            #expect(held[2].isClosedByServer(waiting: 2), "the client's connection shed the next one")
            #expect(server.connectionsShed == 3)
        }
    }

    /// Waits until `condition` holds (checked every 10 ms), at most 5 s.
    func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
