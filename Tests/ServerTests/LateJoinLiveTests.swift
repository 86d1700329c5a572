import Core
import Foundation
import HTTP
import Synchronization
import TestSupport
import Testing

/// The scenario, live: 40 users join a challenge and log walks; eight clients send
/// their events to `journey serve` in random order (many walks before their user's join),
/// in batches of 1 to 10, with resends. Every kilometre must count and every user who walked
/// the target must be completed, at the walk that reached it in time order (or at the join,
/// when the user joined after it: a completion is never before the join).
@Suite(.serialized) struct LateJoinLiveTests {
    struct Walker {
        var user: String
        var joinedAt: Double
        /// (event id, when, km), in time order.
        var walks: [(id: String, at: Double, km: Double)]
    }

    @Test func noKilometreIsLostWhateverTheOrderOfArrival() throws {
        let now = Date().timeIntervalSince1970
        let start = now - 6 * 86_400
        let service = try LiveService(seed: false) { folder in
            try """
            challenge: live-walk
            title: Walk 50 km this fortnight
            type: solo
            metric: {events: [walk_completed], expr: .payload.distance_km | select(type == "number" and . > 0)}
            target_value: 50
            starts_at: \(Timestamp.format(start))
            ends_at: \(Timestamp.format(now + 10 * 86_400))
            xp_reward: 10
            """.write(toFile: folder + "/Rules/challenges/live-walk.yaml", atomically: true, encoding: .utf8)
        }
        defer { _ = service.stop() }
        var random = SplitMix64(seed: 15)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(random.next() % 1_000_000) / 1_000_000 * (range.upperBound - range.lowerBound)
        }
        let walkers: [Walker] = (0..<40).map { n in
            let count = n < 6 ? 3 : 8  // six walk too little to finish; 8 walks of 6.5 km or more do
            let walks = (0..<count).map { w in
                (
                    id: "walk-\(w)", at: uniform(start + 60...now - 600).rounded(),
                    km: (uniform(6.5...9) * 10).rounded() / 10
                )
            }.sorted { $0.at < $1.at }
            return Walker(user: "walker-\(n)", joinedAt: uniform(start + 60...now - 600).rounded(), walks: walks)
        }
        var events: [JSON] = []
        for walker in walkers {
            events.append(
                [
                    "event_id": "join", "user_id": .string(walker.user), "type": "challenge_joined",
                    "occurred_at": .string(Timestamp.format(walker.joinedAt)), "payload": ["challenge_id": "live-walk"],
                ])
            for walk in walker.walks {
                events.append(
                    [
                        "event_id": .string(walk.id), "user_id": .string(walker.user), "type": "walk_completed",
                        "occurred_at": .string(Timestamp.format(walk.at)), "payload": ["distance_km": .number(walk.km)],
                    ])
            }
        }
        events += events.filter { _ in random.next() % 7 == 0 }  // resends
        events.shuffle(using: &random)
        let before = walkers.reduce(0) { count, walker in count + walker.walks.filter { $0.at < walker.joinedAt }.count
        }
        #expect(before > 40, "many walks happen before their user joins: \(before)")

        let clients = 8
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        let port = service.port
        for client in 0..<clients {
            done.enter()
            let mine = events.enumerated().filter { $0.offset % clients == client }.map(\.element)
            Thread.detachNewThread {
                defer { done.leave() }
                var random = SplitMix64(seed: UInt64(client))
                let http = HTTPClient(port: port, timeoutSeconds: 30)
                var index = 0
                while index < mine.count {
                    let size = 1 + Int(random.next() % 10)
                    let batch = Array(mine[index..<min(index + size, mine.count)])
                    index += size
                    do {
                        let (status, body) = try http.json("POST", "/v1/events", ["events": .array(batch)])
                        let rejected = body["rejected"]?.numberValue ?? 0
                        if status != 200 || rejected > 0 { failures.withLock { $0.append("\(status) \(body)") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        done.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(3))")

        var lost = 0.0
        var completions = 0
        var expectedCompletions = 0
        let http = service.client()
        for walker in walkers {
            let (status, body) = try http.json("GET", "/v1/challenges/live-walk?user_id=\(walker.user)")
            #expect(status == 200)
            let expected = walker.walks.reduce(0) { $0 + $1.km }
            let value = body["current_value"]?.numberValue ?? 0
            lost += expected - value
            var running = 0.0
            let reached = walker.walks.first { walk in
                running += walk.km
                return running >= 50
            }
            let (_, rewards) = try http.json("GET", "/v1/users/\(walker.user)/rewards")
            if let reached {
                expectedCompletions += 1
                // At the walk that reached it, or at the join when that came later.
                let completedAt = Timestamp.format(max(reached.at, walker.joinedAt))
                #expect(body["completed_at"]?.stringValue == completedAt, "\(walker.user): \(body)")
                // XP once, granted then, and named by its challenge.
                #expect(rewards["xp"] == 10, "\(rewards)")
                #expect(rewards["rewards"]?[0]?["challenge_id"] == "live-walk")
                #expect(rewards["rewards"]?[0]?["granted_at"]?.stringValue == completedAt)
            } else {
                #expect(rewards["xp"] == 0)
            }
            if body["completed_at"]?.stringValue != nil { completions += 1 }
        }
        #expect(abs(lost) < 1e-6, "km lost: \(lost)")
        #expect(completions == expectedCompletions)
        #expect(expectedCompletions == 34)
    }
}
