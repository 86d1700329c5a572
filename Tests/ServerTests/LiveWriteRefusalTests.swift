import Core
import Foundation
import HTTP
import Testing

/// No silent 200: each write route (and a read's query that names nothing) the app calls either does what it says or refuses with a
/// `code`, a `message` and, in `errors`, the cause: a body field as a JSON pointer (`path`), or
/// the path parameter whose state refused it (`{field: "block_id", in: "path"}`). On a running
/// `journey serve` seeded with examples/events.jsonl (Q, `q-123` of owner-1: weight-baseline
/// completed, impulse-control-basics locked). A refusal changes nothing, so the cases share one
/// service.
@Suite struct LiveWriteRefusalTests {
    struct Refusal: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "POST"
        var path: String
        var body: JSON = [:]
        var status: Int
        var code: String
        /// The body's field (`/card`), or the path (or query) parameter (`block`).
        var cause: String
        /// Where a parameter `cause` is: `path` or `query`.
        var place = "path"
        /// What the message must say besides (the new name of a renamed field, the known kinds).
        var says: String? = nil
        var testDescription: String { name }
    }

    static let q = "/v1/dogs/q-123/blocks"

    static let refusals: [Refusal] = [
        // POST /v1/dogs
        Refusal(
            name: "a registration without a name", path: "/v1/dogs", body: ["dog_id": "qc4", "user_id": "u2"],
            status: 422, code: "invalid", cause: "/name"),
        Refusal(
            name: "a registration with a bad age range", path: "/v1/dogs",
            body: ["dog_id": "qc5", "user_id": "u2", "name": "Rex", "age_range": "99x"], status: 422, code: "invalid",
            cause: "/age_range"),
        // The block flow
        Refusal(
            name: "a step of a dog nobody registered", path: "/v1/dogs/nobody/blocks/weight-baseline/start",
            status: 404, code: "unknown_dog", cause: "dog_id"),
        Refusal(
            name: "a step of a block not in the journey", path: "\(q)/juggling/start", status: 404,
            code: "unknown_block", cause: "block_id"),
        Refusal(
            name: "a theory card outside the block", path: "\(q)/vaccination-record/theory", body: ["card": 9],
            status: 422, code: "invalid", cause: "/card"),
        Refusal(
            name: "a check of a locked block", path: "\(q)/impulse-control-basics/check",
            body: ["answer": ["guess": 10]], status: 422, code: "invalid", cause: "block_id"),
        Refusal(
            name: "a check without an answer", path: "\(q)/vaccination-record/check", status: 422,
            code: "invalid_request", cause: "/answer"),
        Refusal(
            name: "an answer that is not one of the options", path: "\(q)/vaccination-record/check",
            body: ["answer": ["option": "zzz"]], status: 422, code: "invalid", cause: "/answer/option"),
        Refusal(
            name: "a check answered again on a completed block", path: "\(q)/weight-baseline/check",
            body: ["answer": ["outcome": "weighed"]], status: 409, code: "block_completed", cause: "block_id"),
        Refusal(
            name: "an action of another type than the block's", path: "\(q)/vaccination-record/action",
            body: ["type": "weight_saved", "payload": ["kg": 3]], status: 422, code: "invalid_request", cause: "/type"),
        Refusal(
            name: "an auto-complete accepted when the action is done", path: "\(q)/weight-baseline/accept",
            status: 409, code: "already_done", cause: "block_id"),
        Refusal(
            name: "an auto-complete accepted with nothing to count", path: "\(q)/growth-check/accept",
            status: 422, code: "invalid", cause: "block_id"),
        Refusal(
            name: "an auto-complete accepted for an action that has none", path: "\(q)/breed-traits/accept",
            status: 422, code: "invalid", cause: "block_id"),
        // Habits
        Refusal(
            name: "a check-in of a tracker the user does not have", path: "/v1/users/owner-1/habits/checkins",
            body: ["tracker_id": "nope"], status: 404, code: "unknown_tracker", cause: "/tracker_id"),
        Refusal(
            name: "a check-in of a future date", path: "/v1/users/owner-1/habits/checkins",
            body: ["tracker_id": "nope", "date": "2099-01-01"], status: 422, code: "future_date", cause: "/date"),
        Refusal(
            name: "a check-in without a tracker", path: "/v1/users/owner-1/habits/checkins", status: 422,
            code: "invalid_request", cause: "/tracker_id"),
        // Challenges
        Refusal(
            name: "joining a challenge that does not exist", path: "/v1/challenges/nope/join",
            body: ["user_id": "owner-1"], status: 404, code: "unknown_challenge", cause: "challenge_id"),
        Refusal(
            name: "joining without a user", path: "/v1/challenges/walk-50k/join", status: 422,
            code: "invalid_request", cause: "/user_id"),
        // Onboarding
        Refusal(
            name: "skipping with no onboarding shown", path: "/v1/users/nobody-ob/onboarding/skip",
            body: ["step_id": "welcome_page"], status: 409, code: "not_in_progress", cause: "user_id"),
        Refusal(
            name: "skipping a step of a flow not in progress", path: "/v1/users/nobody-ob/onboarding/skip",
            body: ["flow_id": "first_tracker", "step_id": "tap_add"], status: 409, code: "not_in_progress",
            cause: "/flow_id"),
        // Renamed fields (issue 42: one name per concept): the old name is refused, naming the new.
        Refusal(
            name: "a skip naming its flow the old way", path: "/v1/users/nobody-ob/onboarding/skip",
            body: ["flow": "first_tracker", "step_id": "tap_add"], status: 422, code: "invalid_request",
            cause: "/flow", says: "`flow_id`"),
        Refusal(
            name: "joining a side the old way", path: "/v1/challenges/walk-50k/join",
            body: ["user_id": "owner-1", "team": "red"], status: 422, code: "invalid_request", cause: "/team",
            says: "`team_id`"),
        Refusal(
            name: "a fallback answer flagged the old way", path: "\(q)/vaccination-record/check",
            body: ["answer": ["option": "complete"], "fallback": true], status: 422, code: "invalid_request",
            cause: "/fallback", says: "`answers_fallback`"),
        // Reads
        Refusal(
            name: "records of a kind no rule writes", method: "GET", path: "/v1/dogs/q-123/records?kind=wieght",
            status: 422, code: "invalid_query", cause: "kind", place: "query", says: "weight"),
        // The profile
        Refusal(
            name: "a time zone that is not one", method: "PUT", path: "/v1/users/owner-1/profile",
            body: ["timezone": "Mars/Base"], status: 422, code: "invalid_request", cause: "/timezone"),
    ]

    /// One service for every case, stopped by the last case to finish.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var service: LiveService?
        private var left = LiveWriteRefusalTests.refusals.count

        func use<T>(_ body: (HTTPClient) throws -> T) throws -> T {
            lock.lock()
            let client: HTTPClient
            do {
                if service == nil { service = try LiveService(workers: 1) }
                client = service!.client()
                lock.unlock()
            } catch {
                lock.unlock()
                throw error
            }
            defer {
                lock.lock()
                left -= 1
                if left == 0 {
                    service?.stop()
                    service = nil
                }
                lock.unlock()
            }
            return try body(client)
        }
    }

    static let shared = Shared()

    @Test(arguments: refusals)
    func refusedNamingTheCause(_ refusal: Refusal) throws {
        let (status, answer) = try Self.shared.use { client in
            try client.json(refusal.method, refusal.path, refusal.method == "GET" ? nil : refusal.body)
        }
        let place = "\(refusal.method) \(refusal.path) \(refusal.body.compactText): \(status) \(answer.compactText)"
        #expect(status == refusal.status, "\(place)")
        #expect(answer["code"] == .string(refusal.code), "\(place)")
        #expect(answer["message"]?.stringValue?.isEmpty == false, "\(place)")
        let first = try #require(answer["errors"]?[0], "errors names the cause: \(place)")
        if refusal.cause.hasPrefix("/") {
            #expect(first["path"] == .string(refusal.cause) && first["in"] == nil, "\(place)")
        } else {
            #expect(first["field"] == .string(refusal.cause) && first["in"] == .string(refusal.place), "\(place)")
        }
        if let says = refusal.says {
            #expect(answer["message"]?.stringValue?.contains(says) == true, "the message says \(says): \(place)")
        }
    }
}
