import Core
import FeatureKit
import Features
import Foundation
import HTTP
import JQ
import RuleEngine
import Server
import Store
import TestSupport

/// A worker's service on a temporary copy of the bundled rules and a fresh SQLite file, with a
/// fixed clock, answering requests through the router (no sockets).
final class ServiceHarness {
    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!
    static let token = "test-admin-token-0123456789"

    private let folder: TemporaryDirectory
    let service: JourneyService
    let control: ControlBlock

    /// - Parameters:
    ///   - token: the admin token (nil: admin off).
    ///   - seed: ingest examples/events.jsonl first.
    ///   - files: files written over the copy of the rules (path inside `Rules/` → text).
    ///   - database: the store (`--db`: a ``TestStore``'s location); default a fresh SQLite file.
    ///   - features: the features served (default: every one).
    ///   - ruleFolders: the folders of `Rules/` to copy (default: all of it).
    init(
        token: String? = ServiceHarness.token, viewCache: Double = 10, seed: Bool = true, files: [String: String] = [:],
        database: String? = nil, features: FeatureSet = Features.all, ruleFolders: [String]? = nil
    ) throws {
        folder = try TemporaryDirectory()
        var configuration = ServiceConfiguration(features: features)
        configuration.databasePath = database ?? folder.file("journey.sqlite")
        configuration.stateDirectory = folder.file("journey.state")
        if let ruleFolders {
            for name in ruleFolders { _ = try folder.copy(Repository.rules + "/" + name, to: "Rules/" + name) }
            configuration.rulesDirectory = folder.file("Rules")
        } else {
            configuration.rulesDirectory = try folder.copy(Repository.rules, to: "Rules")
        }
        for (relative, text) in files { try folder.write("Rules/" + relative, text) }
        // The check plugins are the Dog Journey's: served with all of `Rules/` only.
        configuration.pluginsDirectory = ruleFolders == nil ? try folder.copy(Repository.plugins, to: "Plugins") : nil
        configuration.adminToken = token
        configuration.accessLog = nil
        configuration.viewCacheSeconds = viewCache
        configuration.clock = { ServiceHarness.now }
        configuration.executable = try BuiltExecutable.path("journey")
        control = try ControlBlock.create()
        control.setWorkerCount(1)
        service = try Worker.open(configuration: configuration, control: control, index: 0)
        if seed {
            let lines = try String(contentsOfFile: Repository.examples + "/events.jsonl", encoding: .utf8)
            let events = try lines.split(separator: "\n").map { try JSONParser().parse(String($0)) }
            let response = send("POST", "/v1/events", json: ["events": .array(events)])
            precondition(response.status == 200, "seeding failed: \(response.text)")
        }
    }

    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSON { (try? JSONParser().parse(body)) ?? .null }
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Sends a request through the service's router.
    func send(
        _ method: String, _ target: String, json: JSON? = nil, body: [UInt8]? = nil, headers: [String: String] = [:],
        admin: Bool = false
    ) -> Response {
        var path = target
        var query: [(name: String, value: String)] = []
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                query.append((String(parts[0]), parts.count > 1 ? String(parts[1]) : ""))
            }
        }
        var request = HTTPRequest(method: method, path: path, query: query, id: "test")
        for (name, value) in headers { request.headers[name.lowercased()] = value }
        if admin { request.headers["authorization"] = "Bearer \(Self.token)" }
        if let json {
            var bytes: [UInt8] = []
            json.appendCompactText(to: &bytes)
            request.body = bytes
        } else if let body {
            request.body = body
        }
        let response = service.handle(request)
        return Response(status: response.status, headers: response.headers, body: response.body)
    }
}

/// Shares one service between serialized tests (it is used by one test at a time).
final class SharedService: @unchecked Sendable {
    private let lock = NSLock()
    private var harness: ServiceHarness?

    func use<T>(_ body: (ServiceHarness) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if harness == nil { harness = try ServiceHarness() }
        return try body(harness!)
    }
}
