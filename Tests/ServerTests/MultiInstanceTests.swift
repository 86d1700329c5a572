import Core
import Features
import Foundation
import HTTP
import RevisionStore
import Revisions
import Store
import StoreBackends
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Three `journey serve` instances on one PostgreSQL database, as an app that outgrew one
/// machine runs them. Eight clients send the examples' events of many users in overlapping
/// batches: a batch goes to a random instance, often to two at once, and earlier batches are
/// sent again; events at the late window's edge are among them. Mid-run one instance is
/// killed (SIGKILL, workers too) and started again, PostgreSQL is restarted, and a revision
/// is published through one instance. Every event must then be stored exactly once, with
/// exactly the rows that ingesting the same events one by one into SQLite gives.
///
/// The tests run in parallel: each has a server or a schema of its own, and only the crash
/// test restarts its server.
@Suite(.enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct MultiInstanceTests {
    /// The columns that differ with the order and time of arrival, not with the events: row
    /// ids (and the columns that point at them), times of receipt, which revision handled an
    /// event, what a habit tracker keeps by the order of its check-ins.
    static let arrivalColumns: Set<String> = StoreDump.habitArrivalColumns.union([
        "id", "event", "received_at", "rule_revision", "provenance", "users.first_seen_at",
        "catalog_snapshots.created_at", "manifests.created_at",
    ])
    /// The service's own tables (the revision published mid-run, its audit): not the events'.
    static let serviceTables = [
        "rule_revisions", "rule_revision_files", "rule_activations", "audit_log", "service_secrets", "rule_approvals",
        "rule_schedules", "revision_settings",
    ]

    @Test func threeInstancesKeepEveryEventOnceThroughCrashesAndARestart() throws {
        let server = try ThrowawayPostgres()
        let workload = try Workload(copies: 30, now: Date().timeIntervalSince1970)
        // The reference (the same events one by one into SQLite) runs meanwhile: it reads only the events.
        let reference = workload.ingestSeriallyInBackground()
        let instances = Instances(count: 3, url: server.url)
        try instances.startAll()
        defer { instances.stopAll() }

        let start = Date()
        let clients = 8
        let done = DispatchGroup()
        let failures = Mutex<[String]>([])
        let sent = Mutex((batches: 0, requests: 0, retries: 0, doubled: 0))
        let batchCount = (0..<clients).map { workload.batches(client: $0, of: clients).count }.reduce(0, +)
        // Set once the publish is served: until then, clients done with their batches send
        // earlier ones again, so that the publish too meets batches in flight.
        let published = Atomic<Bool>(false)
        defer { published.store(true, ordering: .releasing) }
        for client in 0..<clients {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                var random = SplitMix64(seed: UInt64(client + 1))
                var acknowledged: [[JSON]] = []
                let batches = workload.batches(client: client, of: clients)
                for batch in batches {
                    // Often the same batch to two instances at once; it must count once.
                    let twice = random.next() % 3 == 0
                    let first = Int(random.next() % 3)
                    let targets = twice ? [first, (first + 1 + Int(random.next() % 2)) % 3] : [first]
                    let outcomes = Mutex<[String?]>([])
                    let pair = DispatchGroup()
                    for target in targets {
                        pair.enter()
                        Thread.detachNewThread {
                            let outcome = instances.deliver(batch, preferring: target)
                            outcomes.withLock { $0.append(outcome.failure) }
                            sent.withLock {
                                $0.requests += outcome.requests
                                $0.retries += outcome.requests - 1
                            }
                            pair.leave()
                        }
                    }
                    pair.wait()
                    for failure in outcomes.withLock({ $0 }) {
                        if let failure { failures.withLock { $0.append(failure) } }
                    }
                    sent.withLock {
                        $0.batches += 1
                        if twice { $0.doubled += 1 }
                    }
                    acknowledged.append(batch)
                    // Now and then an earlier batch again, to any instance: all duplicates.
                    if random.next() % 5 == 0, let earlier = acknowledged.randomElement(using: &random) {
                        let outcome = instances.deliver(earlier, preferring: Int(random.next() % 3))
                        if let failure = outcome.failure { failures.withLock { $0.append(failure) } }
                        sent.withLock {
                            $0.requests += outcome.requests
                            $0.retries += outcome.requests - 1
                        }
                    }
                }
                // Until the publish is served, earlier batches again.
                while !published.load(ordering: .acquiring), let earlier = acknowledged.randomElement(using: &random) {
                    let outcome = instances.deliver(earlier, preferring: Int(random.next() % 3))
                    if let failure = outcome.failure { failures.withLock { $0.append(failure) } }
                    sent.withLock {
                        $0.requests += outcome.requests
                        $0.retries += outcome.requests - 1
                    }
                }
            }
        }

        // The faults and the publish while the clients send: each once a share of the batches
        // was acknowledged (a quarter, 45 %, 60 %), however fast this machine is today.
        func acknowledged(_ share: Double) throws {
            try waitUntil("\(Int(share * 100)) % of \(batchCount) batches acknowledged") {
                sent.withLock { $0.batches } >= Int(Double(batchCount) * share)
            }
        }
        try acknowledged(0.25)
        try instances.crashAndRestart(1)
        let crashedAt = Date().timeIntervalSince(start)
        try acknowledged(0.45)
        try server.restart()
        let restartedAt = Date().timeIntervalSince(start)
        try acknowledged(0.6)
        let publish = try instances.publishAndWaitUntilServed()
        published.store(true, ordering: .releasing)
        #expect(done.wait(timeout: .now() + 300) == .success, "the clients did not finish within 5 minutes")
        let counts = sent.withLock { $0 }
        let elapsed = Date().timeIntervalSince(start)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")

        // What the instances stored, beside the same events ingested one by one into SQLite.
        let postgres = try StoreLocation(server.url).open(schema: Features.all.schema)
        let (serial, acceptedSerially) = try reference.wait()
        let excluded = Self.arrivalColumns
        var expected = try StoreDump(serial, backend: "sqlite", excluding: excluded)
        var found = try StoreDump(postgres, backend: "postgres", excluding: excluded)
        // The daily digest is the service's (the CLI's ingest does not send it): once per
        // challenge and day across the instances, whatever each instance's first worker did.
        let digests = found.tables.removeValue(forKey: "challenge_digests")?.rows ?? []
        #expect(Set(digests.map { $0.prefix(2) }).count == digests.count)
        for name in ["reminders"] {
            found.tables[name]?.rows.removeAll { $0.contains { $0.hasPrefix("challenge_digest:") } }
        }
        expected.tables.removeValue(forKey: "challenge_digests")
        for name in Self.serviceTables {
            expected.tables.removeValue(forKey: name)
            found.tables.removeValue(forKey: name)
        }
        let differences = found.differences(from: expected)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        #expect(try postgres.eventCount() == acceptedSerially)
        #expect(acceptedSerially > workload.events.count * 8 / 10)
        print(
            "MultiInstanceTests: \(workload.events.count) events (\(acceptedSerially) accepted) in \(counts.batches) batches, \(counts.doubled) sent to two instances at once; \(counts.requests) requests, \(counts.retries) retried; one instance killed at \(String(format: "%.1f", crashedAt)) s, PostgreSQL restarted at \(String(format: "%.1f", restartedAt)) s; a publish served by all three \(String(format: "%.3f", publish.seconds)) s after its answer; \(String(format: "%.1f", elapsed)) s in all; \(found.rowCount) rows alike"
        )
    }

    /// An activation reaches the other instance by its notification, not the poll: with the
    /// poll set to an hour, the second instance serves the published revision (within seconds
    /// on a quiet machine; 16–45 s at load 15, which a poll of a minute could not tell apart).
    @Test func anActivationIsAnnouncedToEveryInstance() throws {
        // A schema of its own on the suite's server: nothing here restarts it.
        let store = try TestStore("postgres", schema: Features.all.schema)
        let instances = try (0..<2).map { _ in
            try LiveService(workers: 1, arguments: ["--db", store.location, "--activation-poll", "1h"], seed: false)
        }
        var files = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins).files
        files["Rules/events/reminders.yaml"] = (files["Rules/events/reminders.yaml"] ?? "") + "\n# announced\n"
        let body: JSON = [
            "message": "announced", "files": .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) })),
        ]
        let before = try instances[1].client().json("GET", "/v1/rules", admin: true).1["revision"]?.stringValue
        let (status, answer) = try instances[0].client().json("POST", "/v1/rules/revisions", body, admin: true)
        try #require(status == 201, "\(answer.compactText.prefix(300))")
        let revision = answer["published_revision"]?["revision"]?.stringValue ?? ""
        try #require(before != nil && before != revision, "the published revision must be a new one")
        let start = Date()
        // Long before its poll (an hour) would find it.
        try waitUntil("the other instance serving the revision", timeout: .seconds(300)) {
            try instances[1].client().json("GET", "/v1/rules", admin: true).1["revision"]?.stringValue == revision
        }
        print(
            "MultiInstanceTests: the other instance served an announced revision \(String(format: "%.3f", Date().timeIntervalSince(start))) s after the publish's answer (poll 1 h)"
        )
    }

    /// Each instance keeps a user's check-in days with the versions it read them at (in its
    /// own memory): a check-in or an uncheck through one instance shows in the statistics the
    /// other serves next, never a day it kept from before.
    @Test func statisticsFollowCheckinsMadeThroughAnotherInstance() throws {
        let store = try TestStore("postgres", schema: Features.all.schema)
        let instances = try (0..<2).map { _ in
            try LiveService(workers: 1, arguments: ["--db", store.location], seed: false)
        }
        let now = Timestamp.format(Date().timeIntervalSince1970.rounded(.down))
        var counter = 0
        func send(_ type: String, _ payload: JSON, through instance: Int) throws {
            counter += 1
            let event: JSON = [
                "event_id": .string("e\(counter)"), "user_id": "hana", "type": .string(type),
                "occurred_at": .string(now),
                "payload": payload,
            ]
            let (status, body) = try instances[instance].client().json("POST", "/v1/events", ["events": [event]])
            try #require(status == 200 && body["accepted"] == 1, "\(type): \(body.compactText.prefix(300))")
        }
        func completed(through instance: Int) throws -> JSON? {
            try instances[instance].client().json("GET", "/v1/users/hana/habits/stats").1["trackers_completed"]
        }
        try send("category_created", ["category_id": "home", "name": "Home"], through: 0)
        for id in ["vet", "tea"] {
            try send(
                "tracker_created",
                [
                    "tracker_id": .string(id), "name": "T", "kind": "irregular", "category": "home", "emoji": "🩺",
                    "color": "#3366FF",
                ],
                through: 0)
        }
        try send("habit_checked", ["tracker_id": "vet"], through: 0)
        #expect(try completed(through: 1) == 1)
        #expect(try completed(through: 0) == 1)
        try send("habit_checked", ["tracker_id": "tea"], through: 0)
        #expect(try completed(through: 1) == 2, "a check-in through the other instance")
        try send("habit_unchecked", ["tracker_id": "vet"], through: 1)
        #expect(try completed(through: 0) == 1, "an uncheck through the other instance")
        try send("tracker_deleted", ["tracker_id": "tea"], through: 0)
        #expect(try completed(through: 1) == .null, "a tracker deleted through the other instance")
    }

    /// A password in `--db` reaches the workers in their environment, never on a command line
    /// any user of the machine can read, nor in the log.
    @Test func theStorePasswordStaysOffCommandLinesAndLogs() throws {
        let server = try ThrowawayPostgres()  // trust authentication: any password is accepted
        let url = server.url.replacingOccurrences(of: "postgres@", with: "postgres:s3cret-pw@")
        let service = try LiveService(workers: 2, arguments: ["--db", url], seed: false)
        let pids = service.workerPIDs
        #expect(pids.count == 2)
        for pid in pids {
            let arguments = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let text = String(decoding: arguments, as: UTF8.self)
            #expect(text.contains("postgresql://postgres@127.0.0.1"), "\(text)")
            #expect(!text.contains("s3cret-pw"))
        }
        let (status, _) = try service.client().json("GET", "/readyz")
        #expect(status == 200)
        #expect(!service.log.contains("s3cret-pw"), "\(service.log)")
        service.stop()
    }
}

/// The events: the examples' users many times over (each copy its own users and dogs), moved
/// to the last days, each user's events in time order, plus events at the late window's
/// edge (a few minutes inside it, accepted; a few minutes outside, refused).
struct Workload: Sendable {
    let events: [JSON]
    /// Each user's events, in order.
    let users: [[JSON]]
    let folder: TemporaryDirectory

    init(copies: Int, now: Double) throws {
        var byUser: [String: [JSON]] = [:]
        var order: [String] = []
        for example in ["events", "habits", "challenges", "onboarding", "experiment"] {
            let lines = try String(contentsOfFile: Repository.examples + "/\(example).jsonl", encoding: .utf8)
                .split(separator: "\n")
            let parsed = try lines.map { try JSONParser().parse(String($0)) }
            let latest = parsed.compactMap { $0["occurred_at"]?.stringValue.flatMap(Timestamp.parse) }.max() ?? now
            let shift = now - 3600 - latest
            for copy in 0..<copies {
                for event in parsed {
                    guard case .object(var fields) = event, let user = fields["user_id"]?.stringValue else { continue }
                    // Not the head-to-head duel: it takes the first two sides to arrive, and whether
                    // one side overtook the other depends on the order the two users' events
                    // arrive in (order of arrival across users is issue 15's).
                    let type = fields["type"]?.stringValue
                    let duel = fields["payload"]?["challenge_id"]?.stringValue == "steps-duel"
                    if type == "steps_logged" || (type == "challenge_joined" && duel) { continue }
                    let owner = "\(user).\(copy)"
                    fields["user_id"] = .string(owner)
                    if let dog = fields["dog_id"]?.stringValue { fields["dog_id"] = .string("\(dog).\(copy)") }
                    if let text = fields["occurred_at"]?.stringValue, let seconds = Timestamp.parse(text) {
                        fields["occurred_at"] = .string(Timestamp.format(seconds + shift))
                    }
                    if byUser[owner] == nil { order.append(owner) }
                    byUser[owner, default: []].append(.object(fields))
                }
            }
        }
        // At the late window's edge: 10 minutes inside (kept) and outside (refused).
        for copy in 0..<copies {
            let owner = "edge.\(copy)"
            order.append(owner)
            byUser[owner] = [
                [
                    "event_id": "edge-in", "user_id": .string(owner), "type": "tap",
                    "occurred_at": .string(Timestamp.format(now - 7 * 86_400 + 600)), "payload": ["element_id": "plus"],
                ],
                [
                    "event_id": "edge-out", "user_id": .string(owner), "type": "tap",
                    "occurred_at": .string(Timestamp.format(now - 7 * 86_400 - 600)), "payload": ["element_id": "plus"],
                ],
            ]
        }
        users = order.map { user in
            (byUser[user] ?? []).enumerated().sorted {
                let a = $0.element["occurred_at"]?.stringValue.flatMap(Timestamp.parse) ?? 0
                let b = $1.element["occurred_at"]?.stringValue.flatMap(Timestamp.parse) ?? 0
                return a == b ? $0.offset < $1.offset : a < b
            }.map(\.element)
        }
        events = users.flatMap { $0 }
        folder = try TemporaryDirectory()
    }

    /// The batches client `client` of `clients` sends: its users' events, several users to a
    /// batch (interleaved: users out of order), each user's in order, 1 to 40 events each.
    func batches(client: Int, of clients: Int) -> [[JSON]] {
        var queues = users.enumerated().filter { $0.offset % clients == client }.map { ArraySlice($0.element) }
        var random = SplitMix64(seed: UInt64(100 + client))
        var batches: [[JSON]] = []
        while queues.contains(where: { !$0.isEmpty }) {
            let size = 1 + Int(random.next() % 40)
            var batch: [JSON] = []
            while batch.count < size,
                let index = queues.indices.filter({ !queues[$0].isEmpty }).randomElement(using: &random)
            {
                batch.append(queues[index].removeFirst())
            }
            batches.append(batch)
        }
        return batches
    }

    /// The same events ingested one by one (each user's in order) into a fresh SQLite store
    /// with the bundled rules: what the instances must have stored. Started at once on a thread
    /// of its own; ``SerialIngest/wait()`` gives the store.
    func ingestSeriallyInBackground() -> SerialIngest {
        let ingest = SerialIngest(file: folder.file("serial.sqlite"))
        let events = events.map(\.compactText).joined(separator: "\n") + "\n"
        let folder = folder
        Thread.detachNewThread {
            ingest.finish {
                let input = try folder.write("events.jsonl", events)
                let run = try ProcessRun(
                    try BuiltExecutable.path("journey"),
                    [
                        "ingest", input, "--db", ingest.file, "--rules", Repository.rules, "--plugins",
                        Repository.plugins, "--batch-size", "1", "--format", "json",
                    ])
                return run.stdout.split(separator: "\n").filter { $0.contains("\"status\":\"accepted\"") }.count
            }
        }
        return ingest
    }
}

/// The reference ingest of ``Workload/ingestSeriallyInBackground()``, running or done.
final class SerialIngest: Sendable {
    /// The SQLite file it writes.
    let file: String
    /// How many events it accepted, or why it failed; nil while it runs.
    private let outcome = Mutex<Result<Int, any Error>?>(nil)

    init(file: String) { self.file = file }

    fileprivate func finish(_ body: () throws -> Int) {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
    }

    /// Waits for the ingest's end; the store and how many events it accepted.
    func wait() throws -> (store: any StoreConnection, accepted: Int) {
        let result = try waitFor("the reference ingest into SQLite", timeout: .seconds(600)) { outcome.withLock { $0 } }
        let accepted = try result.get()
        return (try StoreLocation(file).open(schema: Features.all.schema), accepted)
    }
}

/// The running instances, each a `journey serve` (two workers) on the one database; one may
/// be down while it restarts.
final class Instances: @unchecked Sendable {
    private let url: String
    /// The services, used by the test's own thread only (the clients read `ports`).
    private var services: [LiveService?]
    private let ports: Mutex<[Int?]>

    init(count: Int, url: String) {
        self.url = url
        services = Array(repeating: nil, count: count)
        ports = Mutex(Array(repeating: nil, count: count))
    }

    /// Starts every instance, all at once (each loads the rules in its workers).
    func startAll() throws {
        DispatchQueue.concurrentPerform(iterations: services.count) { index in
            let result = Result { try LiveService(workers: 2, arguments: ["--db", url], seed: false) }
            startLock.withLock { started[index] = result }
        }
        for (index, result) in started.sorted(by: { $0.key < $1.key }) {
            let service = try result.get()
            services[index] = service
            ports.withLock { $0[index] = service.port }
        }
        started = [:]
    }

    /// What ``startAll()``'s threads started, under `startLock`.
    private var started: [Int: Result<LiveService, any Error>] = [:]
    private let startLock = NSLock()

    private func start(_ index: Int) throws {
        let service = try LiveService(workers: 2, arguments: ["--db", url], seed: false)
        services[index] = service
        ports.withLock { $0[index] = service.port }
    }

    func stopAll() {
        for service in services { service?.stop() }
    }

    /// The port of instance `index` (nil while it is down).
    func port(_ index: Int) -> Int? { ports.withLock { $0[index] } }

    /// Kills instance `index` as a machine failure would (workers first, then the supervisor,
    /// all with SIGKILL) and starts it again.
    func crashAndRestart(_ index: Int) throws {
        ports.withLock { $0[index] = nil }
        guard let service = services[index] else { return }
        for worker in service.workerPIDs { kill(worker, SIGKILL) }
        kill(service.process.processIdentifier, SIGKILL)
        services[index] = nil
        _ = service  // reaped when released
        try start(index)
    }

    /// Sends `batch` until an instance acknowledges all of it (200, no event refused for a
    /// storage error), starting with instance `preferring` and moving on after a failure.
    func deliver(_ batch: [JSON], preferring first: Int) -> (requests: Int, failure: String?) {
        let body = Array(JSON.object(["events": .array(batch)]).compactText.utf8)
        let until = Date().addingTimeInterval(120)
        var target = first
        var requests = 0
        var last = ""
        while Date() < until {
            requests += 1
            if let port = ports.withLock({ $0[target % $0.count] }) {
                let client = HTTPClient(port: port, timeoutSeconds: 30)
                do {
                    let response = try client.send(
                        "POST", "/v1/events", headers: ["Content-Type": "application/json"], body: body, retry: false)
                    if response.status == 200 {
                        let results = (try? JSONParser().parse(response.body))?["results"]?.arrayValue ?? []
                        if results.count == batch.count,
                            !results.contains(where: { $0["code"]?.stringValue == "storage_error" })
                        {
                            return (requests, nil)
                        }
                        last = "200 with \(results.count) results: \(response.text.prefix(300))"
                    } else {
                        last = "\(response.status): \(response.text.prefix(300))"
                    }
                } catch {
                    last = "\(error)"
                }
            }
            target += 1
            letTimePass(.milliseconds(100), for: "a client's pause before it tries the next instance")
        }
        return (requests, "a batch was never acknowledged: \(last)")
    }

    /// Publishes the bundled rules with a comment added (the same behaviour, a new revision)
    /// through instance 0; waits until every instance serves it. The seconds from the answer
    /// until all three did.
    func publishAndWaitUntilServed() throws -> (seconds: Double, servedBy: [Int]) {
        let bundled = try RevisionFiles(rulesDirectory: Repository.rules, pluginsDirectory: Repository.plugins)
        var files = bundled.files
        let rule = "Rules/events/reminders.yaml"
        files[rule] = (files[rule] ?? "") + "\n# published while three instances ingest\n"
        let body: JSON = [
            "message": "mid-run", "files": .object(JSONObject(files.map { ($0.key, JSON.string($0.value)) })),
        ]
        var answer: JSON = .null
        // A publish tests and compiles the rules while the instances ingest: minutes at load 15.
        try waitUntil("the publish accepted (last answer: \(answer.compactText.prefix(300)))", timeout: .seconds(300)) {
            guard let port = ports.withLock({ $0[0] }),
                let (status, json) = try? HTTPClient(port: port, timeoutSeconds: 240).json(
                    "POST", "/v1/rules/revisions", body, admin: true)
            else { return false }
            answer = json
            return status == 201
        }
        let revision = answer["published_revision"]?["revision"]?.stringValue ?? ""
        let start = Date()
        var servedBy: Set<Int> = []
        try waitUntil("the publish served by every instance (so far by \(servedBy.sorted()))", timeout: .seconds(300)) {
            for (index, port) in ports.withLock({ $0 }).enumerated() {
                guard let port, !servedBy.contains(index) else { continue }
                // Both workers of an instance: four answers in a row with the revision.
                let answers = (0..<4).map { _ in
                    (try? HTTPClient(port: port).json("GET", "/v1/rules", admin: true))?.1["revision"]?.stringValue
                }
                if answers.allSatisfy({ $0 == revision }) { servedBy.insert(index) }
            }
            return servedBy.count == 3
        }
        return (Date().timeIntervalSince(start), servedBy.sorted())
    }
}
