import Features
import Foundation
import Store
import TestSupport
import Testing

/// `journey ingest` killed with SIGKILL part way, then run again on the same file: every event
/// is stored exactly once, no effect is doubled, and the database is intact — on SQLite and
/// on PostgreSQL.
@Suite struct CrashSafetyTests {
    /// Users in the file, each with a dog.
    static let users = 60

    /// 6,000 events: 60 users each registering a dog, then 99 events (weights, journey
    /// openings, taps) over the following days: 30 batches of 200. The kill comes once three
    /// batches are stored, so that it lands in a run with 27 still to go (more users would
    /// prove nothing more: the run is killed once, wherever it is).
    static func writeEvents(to path: String) throws -> (events: Int, weights: Int, openings: Int) {
        var text = ""
        text.reserveCapacity(users * 24 * 1024)
        var weights = 0
        var openings = 0
        for user in 0..<users {
            text +=
                #"{"event_id":"reg","user_id":"u\#(user)","type":"dog_registered","occurred_at":"2026-11-23T08:00:00Z","dog_id":"d\#(user)","payload":{"name":"Dog \#(user)","age_range":"4-8m","timezone":"Europe/Berlin","metrics":{"bond":\#(user % 100)}}}"#
            text += "\n"
            for i in 0..<99 {
                let minute = i * 80
                let at = String(
                    format: "2026-11-%02dT%02d:%02d:00Z", 23 + minute / 1440, (minute / 60) % 24, minute % 60)
                switch i % 3 {
                case 0:
                    weights += 1
                    text +=
                        #"{"event_id":"e\#(i)","user_id":"u\#(user)","type":"weight_saved","occurred_at":"\#(at)","dog_id":"d\#(user)","payload":{"kg":\#(8 + Double(i) / 10)}}"#
                case 1:
                    openings += 1
                    text +=
                        #"{"event_id":"e\#(i)","user_id":"u\#(user)","type":"journey_opened","occurred_at":"\#(at)","dog_id":"d\#(user)"}"#
                default:
                    text +=
                        #"{"event_id":"e\#(i)","user_id":"u\#(user)","type":"tap","occurred_at":"\#(at)","payload":{"element_id":"plus"}}"#
                }
                text += "\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (users * 100, weights, openings)
    }

    func run(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test(.hangLimit, arguments: TestStore.names)
    func killedIngestResumesExactlyOnce(backend name: String) throws {
        let executable = try BuiltExecutable.path("journey")
        let folder = try TemporaryDirectory()
        let events = folder.file("events.jsonl")
        let backend = try TestStore(name, schema: Features.all.schema)
        let database = backend.location
        let store = backend.store
        func count(_ sql: String) throws -> Int64? { try store.first(sql, []) { $0.integer(0) } }
        let expected = try Self.writeEvents(to: events)
        let arguments = [
            "ingest", events, "--db", database, "--rules", Repository.rules, "--plugins", Repository.plugins,
            "--now", "2026-11-29T12:00:00Z", "--quiet", "--batch-size", "200",
        ]

        // First run: kill it once part of the file is stored.
        let first = try run(executable, arguments)
        var stored: Int64 = 0
        try waitUntil("600 events stored, or the first run's end (\(stored) stored)", timeout: .seconds(300)) {
            if let count = try? count("SELECT count(*) FROM events") { stored = count }
            return stored >= 600 || !first.isRunning
        }
        #expect(first.isRunning, "the first run ended before it could be killed (\(stored) events stored)")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal)
        #expect(stored > 0 && stored < Int64(expected.events), "killed part way (\(stored) events stored)")

        // Second run: the same file, to the end.
        let second = try run(executable, arguments)
        second.waitUntilExit()
        #expect(second.terminationStatus == 0, "no event may be rejected on the second run")

        #expect(try count("SELECT count(*) FROM events") == Int64(expected.events))
        #expect(
            try count("SELECT count(DISTINCT user_id || '/' || event_id) FROM events")
                == Int64(expected.events))
        #expect(try count("SELECT count(*) FROM dogs") == Int64(Self.users))
        #expect(try count("SELECT count(*) FROM profile_records") == Int64(expected.weights))
        #expect(
            try count("SELECT count(*) FROM reminders") == Int64(Self.users),
            "one pending weigh-again per dog")
        // weight_saved and journey_opened, one ai_interpretation_generated per registration, and
        // the records each weight added; a journey_return_d7 at most once per dog.
        #expect(
            try count(
                "SELECT count(*) FROM analytics_outbox WHERE name NOT IN ('experiment_viewed', 'journey_return_d7')")
                == Int64(2 * expected.weights + expected.openings + Self.users))
        #expect(
            try count("SELECT count(*) FROM analytics_outbox WHERE name = 'profile_records_added'")
                == Int64(expected.weights))
        #expect(
            try count("SELECT count(DISTINCT properties) FROM analytics_outbox WHERE name = 'journey_return_d7'")
                == count("SELECT count(*) FROM analytics_outbox WHERE name = 'journey_return_d7'"))
        // The recommendation's experiment: one kept assignment per owner, viewed exactly once.
        let owners = try count("SELECT count(DISTINCT user_id) FROM dogs") ?? 0
        #expect(try count("SELECT count(*) FROM experiment_assignments") == owners)
        #expect(
            try count("SELECT count(*) FROM analytics_outbox WHERE name = 'experiment_viewed'") == owners)
        #expect(try count("SELECT count(*) FROM manifests") == Int64(Self.users))
        #expect(try store.integrityCheck() == "ok")
    }
}
