import Core
import Foundation
import Postgres
import SQLite
import Store
import Synchronization
import TestSupport
import Testing

/// Every ``Store`` requirement, on every backend: SQLite always, PostgreSQL when
/// `JOURNEY_TEST_POSTGRES_URL` names a server (each case in a schema of its own).
@Suite struct StoreConformanceTests {
    static func event(_ id: String, user: String = "u1", dog: String? = "d1", at: Double = 100) -> StoredEvent {
        StoredEvent(
            userID: user, eventID: id, type: "walk", dogID: dog, occurredAt: at, occurredAtText: "t\(at)",
            receivedAt: at + 1, payload: ["minutes": 20, "note": "ш'\""], outcome: ["ok": true], ruleRevision: "r1",
            provenance: ["rules": ["a"]])
    }

    static func seed(_ store: any Store) throws {
        try store.ensureUser("u1", firstSeenAt: 10)
        try store.insertDog(
            DogProfile(id: "d1", userID: "u1", name: "Rex", breed: "collie", metrics: ["kg": 12.5], registeredAt: 11))
    }

    @Test(arguments: TestStore.names)
    func eventsUsersAndDogsRoundTrip(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        try store.ensureUser("u1", firstSeenAt: 99)  // kept once
        #expect(
            try store.dog("d1")
                == DogProfile(
                    id: "d1", userID: "u1", name: "Rex", breed: "collie", metrics: ["kg": 12.5], registeredAt: 11))
        #expect(try store.dog("nobody") == nil)
        #expect(try store.dataVersion(dog: "d1") == 0)
        let first = try store.insertEvent(Self.event("e1", at: 100))
        let version = try store.dataVersion(dog: "d1")
        let second = try store.insertEvent(Self.event("e2", at: 200))
        #expect(second > first && first > 0)
        #expect(try store.dataVersion(dog: "d1") > version && version > 0)
        #expect(try store.eventCount() == 2)
        var expected = Self.event("e1", at: 100)
        expected.rowID = first
        let read = try #require(try store.event(user: "u1", eventID: "e1"))
        #expect(read.rowID == first && read.payload == expected.payload && read.outcome == expected.outcome)
        #expect(read.ruleRevision == "r1" && read.provenance == expected.provenance && read.occurredAtText == "t100.0")
        #expect(try store.event(user: "u1", eventID: "none") == nil)
        #expect(try store.events(dog: "d1", limit: 5).map(\.eventID) == ["e2", "e1"])
        #expect(try store.events(dog: "d1", limit: 1).map(\.rowID) == [second])
    }

    @Test(arguments: TestStore.names)
    func profileRecordsRoundTrip(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        let event = try store.insertEvent(Self.event("e1"))
        let weight = ProfileRecord(
            dogID: "d1", kind: "weight", recordedAt: 3, recordedAtText: "3", payload: ["kg": 12], source: "app",
            ruleRevision: "r1", blockID: "b1")
        try store.insertRecord(weight, event: event)
        try store.insertRecord(
            ProfileRecord(dogID: "d1", kind: "note", recordedAt: 2, recordedAtText: "2", payload: "hi", source: "rule"),
            event: nil)
        #expect(try store.records(dog: "d1", kind: nil).map(\.kind) == ["note", "weight"])
        let weights = try store.records(dog: "d1", kind: "weight")
        #expect(weights.count == 1 && weights.first?.payload == ["kg": 12] && weights.first?.blockID == "b1")
        #expect(weights.first?.id != nil)
    }

    @Test(arguments: TestStore.names)
    func effectsRemindersAndQuarantineRoundTrip(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        let event = try store.insertEvent(Self.event("e1"))
        // One pending reminder per user, dog and kind: the later due time wins.
        try store.scheduleReminder(
            Reminder(userID: "u1", dogID: "d1", kind: "walk", dueAt: 50, payload: "a"), event: event)
        try store.scheduleReminder(
            Reminder(userID: "u1", dogID: "d1", kind: "walk", dueAt: 40, payload: "b"), event: nil)
        try store.scheduleReminder(
            Reminder(userID: "u1", dogID: nil, kind: "walk", dueAt: 30, payload: "c"), event: nil)
        try store.scheduleReminder(
            Reminder(userID: "u1", dogID: nil, kind: "walk", dueAt: 35, payload: "d"), event: nil)
        let due = try store.dueReminders(before: 100, limit: 10)
        #expect(due.map(\.dueAt) == [35, 50] && due.map(\.payload) == ["d", "a"] && due.map(\.dogID) == [nil, "d1"])
        #expect(try store.dueReminders(before: 40, limit: 10).count == 1)
        #expect(try store.dueReminders(before: 100, limit: 1).count == 1)
        let ids = due.compactMap(\.id)
        #expect(try store.markRemindersSent(ids + [999], at: 60) == ids.sorted())
        #expect(try store.markRemindersSent(ids, at: 61) == [])
        #expect(try store.dueReminders(before: 100, limit: 10).isEmpty)

        try store.appendAnalytics(
            AnalyticsEvent(userID: "u1", name: "walked", occurredAt: 1, properties: ["n": 1]), event: event)
        try store.grantReward(
            Reward(reward: "xp", userID: "u1", amount: 5, badgeID: nil, reason: "walk", grantedAt: 1), event: event)
        try store.grantReward(
            Reward(reward: "badge", userID: "u1", amount: nil, badgeID: "b", reason: nil, grantedAt: 2), event: nil)
        #expect(
            try store.first("SELECT count(*) FROM analytics_outbox WHERE event = ?", [.integer(event)]) {
                $0.integer(0)
            } == 1)
        #expect(try store.rows("SELECT amount FROM rewards ORDER BY granted_at") { $0.optionalReal(0) } == [5, nil])

        let record = QuarantineRecord(
            ruleID: "r", ruleDigest: "x", reason: "timeout", inputDigest: nil, detail: "slow", quarantinedAt: 1)
        try store.quarantine(record)
        try store.quarantine(record)  // once per digest
        var newer = record
        newer.ruleDigest = "y"
        newer.quarantinedAt = 2
        try store.quarantine(newer)
        #expect(try store.quarantineRecords() == [newer, record])
        #expect(try store.liftQuarantine(rule: "r") == 2)
        #expect(try store.quarantineRecords().isEmpty)
    }

    /// Reminders of one user, dog and kind, scheduled in every order: the best (later due, then
    /// greater payload) is pending with the second best as its runner-up, whatever the order;
    /// a pending one moved sooner gives way to its runner-up.
    @Test(arguments: TestStore.names)
    func remindersOfOneKindKeepTheBestAndItsRunnerUpInAnyOrder(backend name: String) throws {
        let reminders: [(Double, JSON)] = [(10, "w"), (20, "a"), (20, "b"), (5, "z")]
        func permutations(_ items: [Int]) -> [[Int]] {
            items.count <= 1
                ? [items]
                : items.indices.flatMap { index in
                    var rest = items
                    let first = rest.remove(at: index)
                    return permutations(rest).map { [first] + $0 }
                }
        }
        for order in permutations(Array(reminders.indices)) {
            let backend = try TestStore(name, schema: .core)
            let store = backend.store
            try Self.seed(store)
            for index in order {
                let (due, payload) = reminders[index]
                try store.scheduleReminder(
                    Reminder(userID: "u1", dogID: "d1", kind: "weigh", dueAt: due, payload: payload), event: nil)
            }
            let kept = try store.rows("SELECT status, due_at, payload, runner_due, runner_payload FROM reminders") {
                "\($0.text(0) ?? "") \($0.real(1)) \($0.text(2) ?? "") \($0.real(3)) \($0.text(4) ?? "")"
            }
            #expect(kept == ["pending 20.0 \"b\" 20.0 \"a\""], "\(name), order \(order)")
        }
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        for (due, payload) in reminders {
            try store.scheduleReminder(
                Reminder(userID: "u1", dogID: "d1", kind: "weigh", dueAt: due, payload: payload), event: nil)
        }
        let id = try #require(try store.first("SELECT id FROM reminders", []) { $0.integer(0) })
        try store.movePendingReminder(id, to: 1)
        #expect(try store.dueReminders(before: 100, limit: 10).map(\.payload) == ["a"])
        #expect(
            try store.first("SELECT runner_due, runner_payload FROM reminders", []) {
                "\($0.real(0)) \($0.text(1) ?? "")"
            } == "1.0 \"b\"")
    }

    /// A quarantine for one input is kept beside the service-wide one, once per input, and
    /// lifted alone or with the rest of the rule.
    @Test(arguments: TestStore.names)
    func perInputQuarantineRoundTrip(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        let everyone = QuarantineRecord(
            ruleID: "r", ruleDigest: "x", reason: "crashed", inputDigest: nil, detail: "", quarantinedAt: 1)
        var bigdog = everyone
        (bigdog.reason, bigdog.inputKey, bigdog.inputDigest, bigdog.quarantinedAt) = (
            "timeout", "dog:big", "sha256:a", 2
        )
        var other = bigdog
        (other.inputKey, other.quarantinedAt) = ("dog:other", 3)
        for record in [everyone, bigdog, bigdog, other] { try store.quarantine(record) }
        #expect(try store.quarantineRecords() == [other, bigdog, everyone])
        #expect(try store.liftQuarantine(rule: "r", input: "dog:big") == 1)
        #expect(try store.liftQuarantine(rule: "r", input: "dog:big") == 0)
        #expect(try store.quarantineRecords() == [other, everyone])
        #expect(try store.liftQuarantine(rule: "r") == 2)
        #expect(try store.quarantineRecords().isEmpty)
    }

    /// The window of records a rule sees: the newest of each kind, oldest first.
    @Test(arguments: TestStore.names)
    func newestRecordsPerKind(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        for (kind, at) in [("weight", 1.0), ("vaccine", 2), ("weight", 3), ("weight", 4), ("note", 5), ("weight", 4)] {
            try store.insertRecord(
                ProfileRecord(
                    dogID: "d1", kind: kind, recordedAt: at, recordedAtText: "\(at)", payload: ["at": .number(at)],
                    source: "app"),
                event: nil)
        }
        let window = try store.newestRecords(dog: "d1", perKind: 2)
        #expect(window.map(\.kind) == ["vaccine", "weight", "weight", "note"])
        #expect(window.map(\.recordedAt) == [2, 4, 4, 5])
        #expect(try store.newestRecords(dog: "d1", perKind: 10).count == 6)
        #expect(try store.newestRecords(dog: "nobody", perKind: 2).isEmpty)
        // One kind: its rows as they come, reversed (ties by id, oldest first).
        let weights = try store.newestRecords(dog: "d1", perKind: 3, kinds: ["weight"]) { ($0.real(2), $0.integer(0)) }
        #expect(weights.map(\.0) == [3, 4, 4] && weights[1].1 < weights[2].1)
        let two = try store.newestRecords(dog: "d1", perKind: 1, kinds: ["weight", "vaccine"]) { $0.text(1) ?? "" }
        #expect(two == ["vaccine", "weight"])
        // Since a time (`reads: {within: …}`): each kind's newest recorded at or after it.
        let recent = try store.newestRecords(dog: "d1", perKind: 2, since: 4) { ($0.text(1) ?? "", $0.real(2)) }
        #expect(recent.map(\.0) == ["weight", "weight", "note"] && recent.map(\.1) == [4, 4, 5])
        let weightsSince = try store.newestRecords(dog: "d1", perKind: 3, kinds: ["weight"], since: 2.5) { $0.real(2) }
        #expect(weightsSince == [3, 4, 4])
        #expect(try store.newestRecords(dog: "d1", perKind: 3, since: 5.5) { $0.integer(0) }.isEmpty)
    }

    /// The events a rule sees: the dog's latest, newest first; of some types, since a time.
    @Test(arguments: TestStore.names)
    func latestEventsOfADog(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        for (id, at) in [("e1", 100.0), ("e2", 200), ("e3", 300), ("e4", 300), ("e5", 400)] {
            _ = try store.insertEvent(Self.event(id, at: at))
        }
        func ids(limit: Int, since: Double? = nil, types: Set<String>? = nil) throws -> [String] {
            try store.latestEvents(dog: "d1", limit: limit, types: types, since: since) { $0.text(2) ?? "" }
        }
        #expect(try ids(limit: 3) == ["e5", "e4", "e3"])
        #expect(try ids(limit: 10, since: 300) == ["e5", "e4", "e3"])
        #expect(try ids(limit: 2, since: 200) == ["e5", "e4"], "the newest since then: the window's")
        #expect(try ids(limit: 10, since: 401).isEmpty)
        #expect(try ids(limit: 10, since: 100, types: []).isEmpty)
    }

    /// A check's earlier records: the block's newest of one source up to a time, oldest first.
    @Test(arguments: TestStore.names)
    func earlierRecordsOfABlock(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        for (block, source, at) in [
            ("b", "journey", 1.0), ("b", "journey", 2), ("b", "app", 3), ("c", "journey", 4), ("b", "journey", 5),
            ("b", "journey", 9),
        ] {
            try store.insertRecord(
                ProfileRecord(
                    dogID: "d1", kind: "k", recordedAt: at, recordedAtText: "\(at)", payload: [:], source: source,
                    blockID: block),
                event: nil)
        }
        #expect(
            try store.earlierRecords(dog: "d1", block: "b", source: "journey", at: 5, limit: 2).map(\.recordedAt) == [
                2, 5,
            ])
        #expect(
            try store.earlierRecords(dog: "d1", block: "b", source: "journey", at: 8, limit: 10).map(\.recordedAt) == [
                1, 2, 5,
            ])
    }

    /// The analytics outbox drains in order, each event marked sent once.
    @Test(arguments: TestStore.names)
    func theAnalyticsOutboxDrainsOnce(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        for n in 1...5 {
            try store.appendAnalytics(
                AnalyticsEvent(
                    userID: "u1", name: "walked", occurredAt: Double(n * 10), properties: ["n": .number(Double(n))]),
                event: nil)
        }
        let pending = try store.pendingAnalytics(limit: 10)
        #expect(pending.map { $0.event.occurredAt } == [10, 20, 30, 40, 50])
        #expect(pending[1].event.properties["n"] == 2)
        let ids = pending.map(\.id)
        #expect(try store.pendingAnalytics(limit: 2).map(\.id) == Array(ids.prefix(2)))
        #expect(try store.pendingAnalytics(limit: 10, afterID: ids[2]).map(\.id) == Array(ids.suffix(2)))
        #expect(try store.pendingAnalytics(limit: 10, since: 35).map(\.id) == Array(ids.suffix(2)))
        #expect(try store.markAnalyticsSent([ids[0], ids[1], 999_999], at: 60) == [ids[0], ids[1]])
        #expect(try store.markAnalyticsSent([ids[1]], at: 61) == [])
        #expect(try store.markAnalyticsSent([], at: 61) == [])
        #expect(try store.pendingAnalytics(limit: 10).map(\.id) == Array(ids.suffix(3)))
    }

    @Test(arguments: TestStore.names)
    func transactionsKeepAllOrNothingAndEmptyTheDerivedCache(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.transaction {
                _ = try store.insertEvent(Self.event("e1"))
                _ = store.derivedCache.value("k") { 1 }
                throw Refused()
            }
        }
        #expect(try store.eventCount() == 0)
        #expect(store.derivedCache.value("k") { Int?.none } == nil)
        try store.transaction {
            _ = try store.insertEvent(Self.event("e1"))
            // A unit that throws undoes only its own changes.
            #expect(throws: Refused.self) {
                try store.savepoint {
                    _ = try store.insertEvent(Self.event("e2"))
                    throw Refused()
                }
            }
            try store.savepoint { _ = try store.insertEvent(Self.event("e3")) }
        }
        #expect(try store.rows("SELECT event_id FROM events ORDER BY event_id") { $0.text(0) } == ["e1", "e3"])
    }

    @Test(arguments: TestStore.names)
    func theSameEventTwiceIsAUniqueViolation(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try Self.seed(store)
        _ = try store.insertEvent(Self.event("e1"))
        do {
            _ = try store.insertEvent(Self.event("e1", at: 500))
            Issue.record("a second e1 was accepted")
        } catch let error as PostgresError {
            #expect(name == "postgres" && error.sqlState == "23505")
        } catch let error as SQLiteError {
            #expect(name == "sqlite" && error.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        }
        // Inside a transaction, a unit keeps the rest going (the ingest path's idempotence).
        try store.transaction {
            #expect(throws: (any Error).self) { try store.savepoint { _ = try store.insertEvent(Self.event("e1")) } }
            _ = try store.insertEvent(Self.event("e2"))
        }
        #expect(try store.eventCount() == 2)
    }

    @Test(arguments: TestStore.names)
    func concurrentWritersLoseNothing(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        try Self.seed(backend.store)
        let writers = Writers(try (0..<2).map { _ in try backend.connect() })
        let failures = LockedText()
        DispatchQueue.concurrentPerform(iterations: writers.stores.count) { index in
            let store = writers.stores[index]
            do {
                for n in 0..<50 {
                    try store.transaction { _ = try store.insertEvent(Self.event("w\(index)-\(n)", at: Double(n))) }
                }
            } catch {
                failures.append("writer \(index): \(error)\n")
            }
        }
        #expect(failures.text == "")
        #expect(try backend.store.eventCount() == 100)
        #expect(Set(try backend.store.rows("SELECT id FROM events") { $0.integer(0) }).count == 100)
    }

    /// Two instances writing for the same user: the second waits until the first's
    /// transaction ends, so that what it reads of the user is what the first wrote (what an
    /// event's consumers read of their user's state stays true until its effects are written).
    @Test(arguments: TestStore.names)
    func writersOfOneUserWaitForEachOther(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        try Self.seed(backend.store)
        let writers = Writers(try (0..<2).map { _ in try backend.connect() })
        let user = Self.event("x").userID
        let locked = DispatchSemaphore(value: 0)
        let trying = Atomic<Bool>(false)
        let seen = LockedText()
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            defer { done.leave() }
            let store = writers.stores[0]
            try? store.transaction {
                try store.serializeWriters(of: [user, "someone-else"])
                // The locks are taken by the time the transaction's next statement runs (a
                // backend may send them with it): a batch reads what it works on first.
                _ = try store.event(user: user, eventID: "first")
                locked.signal()
                try waitUntil("the other writer trying") { trying.load(ordering: .acquiring) }
                // Holds the user's lock a moment while the other writer waits for it (nothing
                // tells from outside that it is waiting), then writes.
                letTimePass(.milliseconds(300), for: "the other writer to be waiting for the user's lock")
                _ = try store.insertEvent(Self.event("first"))
            }
        }
        locked.wait()
        let store = writers.stores[1]
        trying.store(true, ordering: .releasing)
        try store.transaction {
            try store.serializeWriters(of: [user])
            seen.set(try store.event(user: user, eventID: "first") == nil ? "not yet" : "seen")
        }
        done.wait()
        #expect(seen.text == "seen")
    }
}

/// Connections to one store, one per thread.
private final class Writers: @unchecked Sendable {  // each thread uses its own connection
    let stores: [any StoreConnection]
    init(_ stores: [any StoreConnection]) { self.stores = stores }
}
