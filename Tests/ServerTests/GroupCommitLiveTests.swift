import Core
import Features
import Foundation
import HTTP
import Store
import StoreBackends
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Group commit, live: `POST /v1/events` requests that arrive together at one worker share one
/// store transaction; each is answered only once its events are committed (another connection
/// reads them the moment the answer arrives); a bad event or a bad request refuses only itself;
/// a worker killed mid-burst loses and doubles nothing once the clients send again. On SQLite,
/// and on PostgreSQL (when a server is named) with two instances sharing the database.
@Suite(.serialized) struct GroupCommitLiveTests {
    /// Requests sent at once in a burst.
    static let clients = 24
    static let occurredAt = Timestamp.format(Date().timeIntervalSince1970.rounded(.down) - 60)

    /// What a burst's request `index` sends: five walks of its own user; request 1 adds an event
    /// for a dog its user does not have (refused in the shared transaction, by the consumers'
    /// checks), request 2 is not a batch at all (refused before it joins).
    static func body(burst: String, index: Int) -> JSON {
        if index == 2 { return ["events": "not an array"] }
        var events: [JSON] = (0..<5).map { number in
            [
                "event_id": .string("\(burst)-r\(index)-e\(number)"), "user_id": .string("gc-\(burst)-\(index)"),
                "type": "walk_completed", "occurred_at": .string(occurredAt), "payload": ["distance_km": 1],
            ]
        }
        if index == 1 {
            events.insert(
                [
                    "event_id": .string("\(burst)-r1-bad"), "user_id": .string("gc-\(burst)-1"),
                    "type": "walk_completed", "dog_id": "nobody-has-this-dog", "occurred_at": .string(occurredAt),
                    "payload": ["distance_km": 1],
                ], at: 2)
        }
        return ["events": .array(events)]
    }

    /// The group commit counters of `/metrics`, summed over the instances on `ports`:
    /// transactions, and the requests they held.
    static func commits(ports: [Int]) throws -> (commits: Int, requests: Int) {
        var total = (commits: 0, requests: 0)
        for port in ports {
            let text = try HTTPClient(port: port, timeoutSeconds: 30).send("GET", "/metrics").text
            func value(_ name: String) -> Int {
                let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? -1
            }
            total.commits += value("journey_event_commits_total")
            total.requests += value("journey_event_commit_requests_total")
        }
        return total
    }

    /// Sends every request of `bodies` at once (a thread and a connection each, released together;
    /// request `i` to the instance on `ports[i % ports.count]`) and returns each one's answer;
    /// `check` runs on the client's thread as its answer arrives.
    static func burst(
        _ ports: [Int], _ bodies: [JSON], check: @escaping @Sendable (Int, Int, JSON) -> Void = { _, _, _ in }
    ) -> [(status: Int, body: JSON)?] {
        let answers = Mutex<[(status: Int, body: JSON)?]>(Array(repeating: nil, count: bodies.count))
        let ready = Atomic<Int>(0)
        let done = DispatchGroup()
        let texts = bodies.map { Array($0.compactText.utf8) }
        for index in bodies.indices {
            done.enter()
            let port = ports[index % ports.count]
            let bytes = texts[index]
            Thread.detachNewThread {
                defer { done.leave() }
                let client = HTTPClient(port: port, timeoutSeconds: 60)
                // Connected first, so that the requests leave together.
                _ = try? client.send("GET", "/healthz")
                ready.add(1, ordering: .acquiringAndReleasing)
                while ready.load(ordering: .acquiring) < texts.count { sched_yield() }
                guard
                    let response = try? client.send(
                        "POST", "/v1/events", headers: ["Content-Type": "application/json"], body: bytes,
                        retry: false)
                else { return }
                let body = (try? JSONParser().parse(response.body)) ?? .null
                check(index, response.status, body)
                answers.withLock { $0[index] = (response.status, body) }
            }
        }
        done.wait()
        return answers.withLock { $0 }
    }

    @Test(arguments: TestStore.names)
    func concurrentRequestsShareACommitAndEachIsAnsweredAfterIt(backend: String) throws {
        let store = try TestStore(backend, schema: Features.all.schema)
        // One worker per instance, so that a burst's requests meet in one process.
        let services = try (0..<(backend == "postgres" ? 2 : 1)).map { _ in
            try LiveService(workers: 1, arguments: ["--db", store.location], seed: false)
        }
        defer { for service in services { service.stop() } }
        let ports = services.map(\.port)
        let reader = Mutex(try store.connect())
        // Events answered `accepted` that another connection could not read when the answer came.
        let unseen = Mutex<[String]>([])
        var bursts: [String] = []
        var grouped = false
        // Requests sent together reach the worker together, but a loaded machine may still hand
        // them over one at a time: bursts are sent until one shared a transaction.
        for round in 0..<30 where !grouped {
            let burst = "b\(round)"
            bursts.append(burst)
            let before = try Self.commits(ports: ports)
            let answers = Self.burst(ports, (0..<Self.clients).map { Self.body(burst: burst, index: $0) }) {
                _, status, body in
                guard status == 200 else { return }
                for result in body["results"]?.arrayValue ?? [] where result["status"]?.stringValue == "accepted" {
                    let user = result["user_id"]?.stringValue ?? ""
                    let id = result["event_id"]?.stringValue ?? ""
                    let stored = reader.withLock { (try? $0.event(user: user, eventID: id)) != nil }
                    if !stored { unseen.withLock { $0.append(id) } }
                }
            }
            for (index, answer) in answers.enumerated() {
                let answer = try #require(answer, "request \(index) of \(burst) got no answer")
                if index == 2 {
                    #expect(answer.status == 422, "the request that is no batch: \(answer.body)")
                    continue
                }
                #expect(answer.status == 200, "request \(index) of \(burst): \(answer.body)")
                let statuses = (answer.body["results"]?.arrayValue ?? []).map { $0["status"]?.stringValue ?? "" }
                if index == 1 {
                    #expect(statuses == ["accepted", "accepted", "rejected", "accepted", "accepted", "accepted"])
                    #expect(answer.body["results"]?[2]?["code"]?.stringValue == "unknown_dog")
                } else {
                    #expect(statuses == Array(repeating: "accepted", count: 5), "request \(index): \(answer.body)")
                }
            }
            let after = try Self.commits(ports: ports)
            // Every request that reached the ingest path (all but the one that is no batch).
            #expect(after.requests - before.requests == Self.clients - 1)
            grouped = after.commits - before.commits < after.requests - before.requests
        }
        #expect(grouped, "no two of \(bursts.count) bursts' requests shared a transaction")
        #expect(unseen.withLock { $0 } == [], "answered before their commit")

        // Sent again, the first burst is all duplicates (the refused event refused again).
        let again = Self.burst(ports, (0..<Self.clients).map { Self.body(burst: bursts[0], index: $0) })
        for (index, answer) in again.enumerated() where index != 2 {
            let answer = try #require(answer)
            let statuses = (answer.body["results"]?.arrayValue ?? []).map { $0["status"]?.stringValue ?? "" }
            #expect(Set(statuses) == (index == 1 ? ["duplicate", "rejected"] : ["duplicate"]), "\(answer.body)")
        }
    }

    @Test(arguments: TestStore.names)
    func aWorkerKilledMidBurstLosesAndDoublesNothing(backend: String) throws {
        let store = try TestStore(backend, schema: Features.all.schema)
        let service = try LiveService(workers: 1, arguments: ["--db", store.location], seed: false)
        defer { service.stop() }
        let bodies = (0..<Self.clients).filter { $0 != 2 }.map { Self.body(burst: "k", index: $0) }
        // Each event's `accepted` answers, over every try.
        let accepted = Mutex<[String: Int]>([:])
        let count: @Sendable (Int, Int, JSON) -> Void = { _, status, body in
            guard status == 200 else { return }
            for result in body["results"]?.arrayValue ?? [] where result["status"]?.stringValue == "accepted" {
                accepted.withLock { $0[result["event_id"]?.stringValue ?? "", default: 0] += 1 }
            }
        }
        let victim = try #require(service.workerPIDs.first)
        // Killed once the burst's first group committed: the requests of later groups are cut off
        // wherever they are (being read, deferred, written).
        let port = service.port
        let killer = Thread {
            _ = try? waitUntil("the burst's first commit", timeout: .seconds(30)) {
                ((try? Self.commits(ports: [port]))?.requests ?? 0) > 0
            }
            kill(victim, SIGKILL)
        }
        killer.start()
        var answers = Self.burst([service.port], bodies, check: count)
        // Sent again until every request is answered: a request cut off by the kill was either
        // committed (its events are duplicates now) or not (accepted now).
        try waitUntil("every request answered after the kill", timeout: .seconds(120)) {
            let missing = answers.indices.filter { answers[$0]?.status != 200 }
            guard !missing.isEmpty else { return true }
            let retried = Self.burst([service.port], missing.map { bodies[$0] }, check: count)
            for (slot, index) in missing.enumerated() { answers[index] = retried[slot] }
            return false
        }
        let reader = try store.connect()
        for body in bodies {
            for event in body["events"]?.arrayValue ?? [] where event["dog_id"] == nil {
                let id = event["event_id"]?.stringValue ?? ""
                #expect(try reader.event(user: event["user_id"]?.stringValue ?? "", eventID: id) != nil, "\(id) lost")
                #expect(accepted.withLock { $0[id] ?? 0 } <= 1, "\(id) accepted twice")
            }
        }
    }
}
