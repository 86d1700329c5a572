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

/// The fault matrix on PostgreSQL with two instances, under load: each instance's supervisor
/// killed (SIGKILL; its workers die with it) and started again on its port, PostgreSQL killed
/// (SIGKILL to the postmaster) and started again (crash recovery), and PostgreSQL restarted.
/// Clients send every event until an instance acknowledges it, moving to the other instance
/// on a failure; each event is counted as sent, acknowledged and stored: none acknowledged and
/// lost, none accepted twice, and every stored walk counted once in its user's challenge
/// progress. `JOURNEY_FAULT_ROUNDS` repeats the matrix (`scripts/bench faults` runs it long).
@Suite(.serialized, .enabled(if: TestStore.postgresURL != nil, "no PostgreSQL server (JOURNEY_TEST_POSTGRES_URL)"))
struct PostgresFaultMatrixTests {
    static var rounds: Int { Int(ProcessInfo.processInfo.environment["JOURNEY_FAULT_ROUNDS"] ?? "") ?? 1 }

    enum Fault: CustomStringConvertible {
        case killInstance(Int), killPostgres, restartPostgres
        var description: String {
            switch self {
            case .killInstance(let index): "kill -9 instance \(index)'s supervisor, start it again"
            case .killPostgres: "kill -9 PostgreSQL, start it again"
            case .restartPostgres: "restart PostgreSQL"
            }
        }
    }

    @Test func noEventIsLostOrDoubledThroughKills() throws {
        let server = try ThrowawayPostgres()
        let instances = try FaultInstances(count: 2, url: server.url)
        defer { instances.stopAll() }
        let load = EventLoad(instances: instances, clients: 6, usersPerClient: 8 * Self.rounds)
        defer { load.stop() }
        var log: [String] = []
        /// Waits until the load has `more` events acknowledged since now (it runs again).
        func progress(_ more: Int, after what: String) throws {
            let target = load.counts.acknowledged + more
            try waitUntil("the load going on after: \(what) (\(load.counts))", timeout: .seconds(120)) {
                load.counts.acknowledged >= target
            }
        }
        try progress(200, after: "the start")
        for round in 0..<Self.rounds {
            for fault in [Fault.killInstance(0), .killPostgres, .killInstance(1), .restartPostgres] {
                let started = Date()
                switch fault {
                case .killInstance(let index):
                    try instances.killAndRestart(index)
                case .killPostgres:
                    let failures = load.counts.failedRequests
                    try server.kill()
                    // Restarted once the instances are seen failing without it.
                    try? waitUntil("the instances failing", timeout: .seconds(10)) {
                        load.counts.failedRequests > failures
                    }
                    try server.restart()
                case .restartPostgres:
                    try server.restart()
                }
                try progress(100, after: "\(fault)")
                log.append(
                    "round \(round + 1): \(fault): acknowledged again within \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
                )
            }
        }
        load.stop()
        let counts = load.counts
        #expect(counts.undelivered == 0, "\(counts.undelivered) batches never acknowledged")
        #expect(counts.rejected == 0, "\(counts.rejected) events refused")

        let store = try StoreLocation(server.url).open(schema: Features.all.schema)
        let stored = Set(
            try store.rows("SELECT user_id, event_id FROM events WHERE user_id LIKE 'fm-%'") {
                "\($0.text(0) ?? "")/\($0.text(1) ?? "")"
            })
        let acknowledged = load.acknowledgedKeys
        let lost = acknowledged.subtracting(stored)
        let unsent = stored.subtracting(load.sentKeys)
        let acceptedTwice = load.acceptedTwice
        #expect(lost.isEmpty, "acknowledged but not stored: \(lost.sorted().prefix(5))")
        #expect(unsent.isEmpty, "stored but never sent: \(unsent.sorted().prefix(5))")
        #expect(acceptedTwice.isEmpty, "accepted twice: \(acceptedTwice.sorted().prefix(5))")
        // Every stored walk counted once in its user's progress (1 km each), and in the total.
        let (walks, progress, miscounted) = try walksMiscounted(in: store)
        #expect(miscounted.isEmpty, "progress differs from the stored walks: \(miscounted.prefix(5)) vs \(progress)")
        let total = try store.first(
            "SELECT value FROM challenge_totals WHERE challenge_id = 'community-walks' AND team = ''", []
        ) { $0.real(0) }
        #expect(total == Double(walks.reduce(0) { $0 + $1.1 }))
        print(
            "PostgresFaultMatrixTests: \(log.joined(separator: "; ")). Events sent \(load.sentKeys.count), acknowledged \(acknowledged.count), stored \(stored.count); lost \(lost.count), accepted twice \(acceptedTwice.count); \(counts.requests) requests, \(counts.failedRequests) failed and sent again"
        )
    }
}

/// The fault users' (`fm-…`) stored walks (1 km each), their `community-walks` progress, and
/// the users whose progress differs from their walks.
func walksMiscounted(in store: any StoreConnection) throws -> (
    walks: [(String, Int64)], progress: [String: Double], miscounted: [(String, Int64)]
) {
    let walks = try store.rows(
        "SELECT user_id, count(*) FROM events WHERE user_id LIKE 'fm-%' AND type = 'walk_completed' GROUP BY user_id"
    ) { ($0.text(0) ?? "", $0.integer(1)) }
    let progress = Dictionary(
        uniqueKeysWithValues: try store.rows(
            "SELECT user_id, value FROM challenge_progress WHERE challenge_id = 'community-walks' AND user_id LIKE 'fm-%'"
        ) { ($0.text(0) ?? "", $0.real(1)) })
    return (walks, progress, walks.filter { progress[$0.0] != Double($0.1) })
}

/// `journey serve` instances (two workers each unless told) on one PostgreSQL database, with the
/// community challenge open whatever the date; one may be down while it restarts.
final class FaultInstances: @unchecked Sendable {
    // `@unchecked Sendable`: `services` is used by the test's thread only; clients read `ports`.
    private var services: [LiveService]
    let ports: Mutex<[Int?]>
    private let url: String
    private let workers: Int

    init(count: Int, url: String, workers: Int = 2) throws {
        self.url = url
        self.workers = workers
        // Started together: the first migrates the store while the others compile their rules.
        let started = StartedServices(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            started.set(index, Result { try Self.start(url: url, workers: workers, reusing: nil, port: nil) })
        }
        services = try started.all()
        ports = Mutex(services.map { Optional($0.port) })
    }

    private static func start(url: String, workers: Int, reusing: TemporaryDirectory?, port: Int?) throws
        -> LiveService
    {
        try LiveService(
            workers: workers,
            arguments: ["--db", url, "--access-log", "off"] + (port.map { ["--port", String($0)] } ?? []),
            seed: false, reusing: reusing
        ) { folder in
            guard reusing == nil else { return }
            let path = folder + "/Rules/challenges/community-walks.yaml"
            let text = try String(contentsOfFile: path, encoding: .utf8)
                .replacing(#/starts_at: .*/#, with: "starts_at: 2020-01-01T00:00:00Z")
                .replacing(#/ends_at: .*/#, with: "ends_at: 2099-12-31T23:59:59Z")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// Kills instance `index`'s supervisor with SIGKILL (its workers die with it) and starts the
    /// instance again on its port, as a process manager would.
    func killAndRestart(_ index: Int) throws {
        let old = services[index]
        ports.withLock { $0[index] = nil }
        kill(old.process.processIdentifier, SIGKILL)
        services[index] = try Self.start(url: url, workers: workers, reusing: old.directory, port: old.port)
        ports.withLock { $0[index] = old.port }
    }

    func stopAll() {
        for service in services { service.stop() }
    }
}

/// Services started on several threads, each put in its place.
private final class StartedServices: @unchecked Sendable {
    // `@unchecked Sendable`: `results` is behind `lock`.
    private let lock = NSLock()
    private var results: [Result<LiveService, any Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ result: Result<LiveService, any Error>) {
        lock.withLock { results[index] = result }
    }

    /// Every service, or the first error (the services that started are stopped).
    func all() throws -> [LiveService] {
        let results = lock.withLock { self.results.compactMap { $0 } }
        if let failure = results.first(where: { (try? $0.get()) == nil }), case .failure(let error) = failure {
            for case .success(let service) in results { service.stop() }
            throw error
        }
        return results.map { try! $0.get() }
    }
}
