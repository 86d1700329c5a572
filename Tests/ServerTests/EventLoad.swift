import Core
import Foundation
import HTTP
import Synchronization
import TestSupport

/// Clients sending their users' events through the instances until each is acknowledged:
/// every user joins the community challenge, then walks 1 km again and again; events go in
/// batches of 1 to 20, each user's in order, each batch to a random instance and, when that
/// fails (no answer, an error, a storage error), again to the next one until acknowledged
/// (every event `accepted` or `duplicate`). Each event is counted as sent, acknowledged, and
/// how many answers said `accepted`.
final class EventLoad: @unchecked Sendable {
    // `@unchecked Sendable`: the state is behind a mutex; the clients' threads own the rest.
    struct Counts: CustomStringConvertible, Sendable {
        var acknowledged = 0
        var requests = 0
        var failedRequests = 0
        /// Batches given up on (no acknowledgement within 2 minutes).
        var undelivered = 0
        var rejected = 0
        var description: String {
            "\(acknowledged) acknowledged, \(requests) requests, \(failedRequests) failed, \(undelivered) undelivered"
        }
    }

    private struct State {
        var counts = Counts()
        var sent: Set<String> = []
        var acknowledged: Set<String> = []
        var accepted: [String: Int] = [:]
    }

    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Int>(0)
    private let clients: Int

    init(instances: FaultInstances, clients: Int, usersPerClient: Int) {
        self.clients = clients
        let occurredAt = Timestamp.format(Date().timeIntervalSince1970.rounded(.down) - 60)
        for client in 0..<clients {
            Thread.detachNewThread { [self] in
                var random = SplitMix64(seed: UInt64(client + 1))
                // Each user's next event: the join, then walk after walk.
                var next = Array(repeating: 0, count: usersPerClient)
                func event(_ number: Int) -> JSON {
                    let user = JSON.string("fm-\(client)-\(number)")
                    defer { next[number] += 1 }
                    guard next[number] > 0 else {
                        return [
                            "event_id": "join", "user_id": user, "type": "challenge_joined",
                            "occurred_at": .string(occurredAt), "payload": ["challenge_id": "community-walks"],
                        ]
                    }
                    return [
                        "event_id": .string("walk-\(next[number])"), "user_id": user, "type": "walk_completed",
                        "occurred_at": .string(occurredAt), "payload": ["distance_km": 1],
                    ]
                }
                while !stopped.load(ordering: .acquiring) {
                    let size = 1 + Int(random.next() % 20)
                    let batch = (0..<size).map { _ in event(Int(random.next() % UInt64(usersPerClient))) }
                    deliver(batch, instances: instances, first: Int(random.next() % 2))
                }
                finished.add(1, ordering: .releasing)
            }
        }
    }

    static func key(_ event: JSON) -> String {
        "\(event["user_id"]?.stringValue ?? "")/\(event["event_id"]?.stringValue ?? "")"
    }

    private func deliver(_ batch: [JSON], instances: FaultInstances, first: Int) {
        let keys = batch.map(Self.key)
        state.withLock { $0.sent.formUnion(keys) }
        let body = Array(JSON.object(["events": .array(batch)]).compactText.utf8)
        let deadline = Date().addingTimeInterval(120)
        var target = first
        while Date() < deadline {
            defer { target += 1 }
            guard let port = instances.ports.withLock({ $0[target % $0.count] }) else { continue }
            let client = HTTPClient(port: port, timeoutSeconds: 30)
            let response = try? client.send(
                "POST", "/v1/events", headers: ["Content-Type": "application/json"], body: body, retry: false)
            client.disconnect()
            let results = response.flatMap { try? JSONParser().parse($0.body) }?["results"]?.arrayValue ?? []
            let statuses = results.map { $0["status"]?.stringValue ?? "" }
            let acknowledged =
                response?.status == 200 && results.count == batch.count
                && statuses.allSatisfy { ["accepted", "duplicate", "rejected"].contains($0) }
            state.withLock { state in
                state.counts.requests += 1
                for (index, status) in statuses.enumerated() where status == "accepted" && index < keys.count {
                    state.accepted[keys[index], default: 0] += 1
                }
                if acknowledged {
                    state.acknowledged.formUnion(keys)
                    state.counts.acknowledged += keys.count
                    state.counts.rejected += statuses.filter { $0 == "rejected" }.count
                } else {
                    state.counts.failedRequests += 1
                }
            }
            if acknowledged { return }
            usleep(50_000)
        }
        state.withLock { $0.counts.undelivered += 1 }
    }

    var counts: Counts { state.withLock { $0.counts } }
    var sentKeys: Set<String> { state.withLock { $0.sent } }
    var acknowledgedKeys: Set<String> { state.withLock { $0.acknowledged } }
    /// Events more than one answer said were accepted.
    var acceptedTwice: [String] { state.withLock { $0.accepted.filter { $0.value > 1 }.map(\.key) } }

    /// Starts no more batches; waits (at most 3 minutes) for those being delivered.
    func stop() {
        stopped.store(true, ordering: .releasing)
        try? waitUntil("every client stopped", timeout: .seconds(180)) {
            finished.load(ordering: .acquiring) == clients
        }
    }
}
