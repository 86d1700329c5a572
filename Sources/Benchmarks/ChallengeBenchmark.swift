import Challenges
import Core
import Engine
import Features
import Foundation
import JQ
import RuleEngine
import SQLiteStore
import Store

/// A community challenge with many participants and many events through the whole engine
/// (every feature's consumers), beside the plain ingest benchmark's workload measured in the
/// same run; and the cost of reading the challenge's progress as participants grow.
struct ChallengeBenchmark {
    var options: BenchmarkOptions
    static let receivedAt = Timestamp.parse("2026-11-29T12:00:00Z")!
    static let batchSize = 500

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        let (ruleSet, evaluator) = try options.loadRules()
        guard let instance = ChallengeCatalog(ruleSet: ruleSet).resolve("community-walks") else {
            throw Problem(description: "the bundled community challenge `community-walks` is missing")
        }
        let participants = options.participants
        let events = options.events
        print(
            "journey-bench challenges: a community challenge (\(instance.id)) with \(participants) participants and \(events) events"
        )
        print("every feature's consumers, transactions of \(Self.batchSize) events; one round\n")

        // Baseline: the plain ingest benchmark's workload, same engine, same run.
        let plain = IngestWorkload(events: min(events, 200_000))
        let plainFile = TemporaryFile()
        let plainSeconds = try ingest(plain.lines, evaluator: RuleEvaluator(ruleSet: ruleSet), path: plainFile.path)
        let plainRate = Double(plain.lines.count) / plainSeconds

        let file = TemporaryFile()
        let store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(clock: { Self.receivedAt }), cores: 1)

        // Joins, measuring the progress read at 1k, 10k, … participants.
        var reads: [(Int, Double, Double)] = []
        var joined = 0
        var joinSeconds = 0.0
        for mark in [1_000, 10_000, 100_000, 1_000_000].filter({ $0 <= participants }) + [participants]
        where mark > joined {
            let lines = (joined..<mark).map { n in
                #"{"event_id":"join","user_id":"walker-\#(n)","type":"challenge_joined","occurred_at":"2026-11-23T08:00:00Z","payload":{"challenge_id":"community-walks"}}"#
            }
            joinSeconds += try ingest(lines, ingestor: ingestor)
            joined = mark
            reads.append(
                (
                    mark, try measureRead(instance, store: store, view: false),
                    try measureRead(instance, store: store, view: true)
                ))
        }
        // Walks: participants in turn, over the last six days.
        var generator = SplitMix(seed: 11)
        let base = Self.receivedAt - 6 * 86_400
        // With `--late N`, the last N walks happened in the first minutes, before the goal was
        // reached: they arrive late, and each may move the group's completion back.
        let late = min(options.late, events)
        let lines = (0..<events).map { n -> String in
            let user = Int(generator.next() % UInt64(participants))
            let at = Timestamp.format(
                n >= events - late ? base + Double(n - (events - late)) / 4 : base + Double(n % 518_400))
            let km = Double(generator.next() % 100) / 10 + 0.1
            return
                #"{"event_id":"w\#(n)","user_id":"walker-\#(user)","type":"walk_completed","occurred_at":"\#(at)","payload":{"distance_km":\#(km)}}"#
        }
        let walkSeconds = try ingest(Array(lines.dropLast(late)), ingestor: ingestor)
        let walkRate = Double(events - late) / walkSeconds
        let lateSeconds = late == 0 ? 0 : try ingest(Array(lines.suffix(late)), ingestor: ingestor)
        let finalRead = try measureRead(instance, store: store, view: true)
        let total = try store.challengeTotals(challenge: instance.id).first { $0.team.isEmpty }

        print(
            String(
                format: "plain ingest workload (%d events, registration + event rules): %8.0f events/s",
                plain.lines.count, plainRate))
        print(
            String(
                format: "challenge joins (%d):                                       %8.0f events/s", participants,
                Double(participants) / joinSeconds))
        print(
            String(
                format:
                    "challenge walks (%d, all consumers):                       %8.0f events/s  (%.2f× the plain workload's time per event)",
                events - late, walkRate, plainRate / walkRate))
        if late > 0 {
            print(
                String(
                    format:
                        "late walks (%d, before the goal was reached; arriving after the others): %8.0f events/s  (%.2f× the plain workload's time per event)",
                    late, Double(late) / lateSeconds, plainRate * lateSeconds / Double(late)))
        }
        print(
            "group total: \(String(format: "%.1f", total?.value ?? 0)) km from \(total?.participants ?? 0) participants\n"
        )
        print("reading the challenge's progress (µs per read, 2,000 reads):")
        print(
            table(
                header: ["participants", "totals row", "whole view"],
                rows: reads.map { [String($0.0), String(format: "%.1f", $0.1), String(format: "%.1f", $0.2)] }
                    + [["\(participants) after the walks", "", String(format: "%.1f", finalRead)]]))
        print("\nthe totals are kept as events count, so reading them does not grow with participants.")
        try lateJoins(evaluator: evaluator)
    }

    /// The cost of a join that arrives after the user's walks: it counts each of them (reading
    /// and evaluating it), beside the same walks counted one by one as they arrive after the join.
    private func lateJoins(evaluator: RuleEvaluator) throws {
        let users = max(1, min(options.participants, 2_000))
        let walksPerUser = 50
        let base = Self.receivedAt - 6 * 86_400
        let joins = (0..<users).map { n in
            #"{"event_id":"join","user_id":"late-\#(n)","type":"challenge_joined","occurred_at":"2026-11-23T07:00:00Z","payload":{"challenge_id":"walk-50k"}}"#
        }
        let walks = (0..<users * walksPerUser).map { n -> String in
            let at = Timestamp.format(base + 3_600 + Double(n % 400_000))
            return
                #"{"event_id":"w\#(n)","user_id":"late-\#(n % users)","type":"walk_completed","occurred_at":"\#(at)","payload":{"distance_km":0.5}}"#
        }
        func store() throws -> (TemporaryFile, Ingestor) {
            let file = TemporaryFile()
            let ingestor = Features.all.makeIngestor(
                store: try SQLiteStore(path: file.path, schema: Features.all.schema), evaluator: evaluator,
                policy: IngestPolicy(clock: { Self.receivedAt }), cores: 1)
            return (file, ingestor)
        }
        let (inOrderFile, inOrder) = try store()
        _ = try ingest(joins, ingestor: inOrder)
        let countedSeconds = try ingest(walks, ingestor: inOrder)
        let (lateFile, late) = try store()
        _ = try ingest(walks, ingestor: late)
        let lateSeconds = try ingest(joins, ingestor: late)
        _ = (inOrderFile, lateFile)
        let perCounted = countedSeconds / Double(walks.count) * 1e6
        let perRecomputed = lateSeconds / Double(walks.count) * 1e6
        print(
            "\nlate joins: \(users) users, \(walksPerUser) walks each stored before the join (solo walk-50k)")
        print(
            table(
                header: ["", "µs per walk"],
                rows: [
                    ["walks after the join, counted as they arrive", String(format: "%.1f", perCounted)],
                    ["walks before the join, counted by the join", String(format: "%.1f", perRecomputed)],
                ]))
        print(
            String(
                format: "a late join costs %.2f× a walk's own counting per walk it recomputes (%.1f ms per join)",
                perRecomputed / perCounted, lateSeconds / Double(users) * 1e3))
    }

    /// µs per read of the running totals (or of the whole challenge view without ranking/feed).
    private func measureRead(_ instance: ChallengeInstance, store: SQLiteStore, view: Bool) throws -> Double {
        let iterations = 2_000
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<iterations {
            if view {
                _ = try ChallengeViews.show(
                    instance, store: store, user: "walker-1", now: Self.receivedAt, feed: 0, naming: .userIDs)
            } else {
                _ = try store.challengeTotals(challenge: instance.id)
            }
        }
        let (seconds, attoseconds) = (clock.now - started).components
        return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(iterations)
    }

    private func ingest(_ lines: [String], evaluator: RuleEvaluator, path: String) throws -> Double {
        let store = try SQLiteStore(path: path, schema: Features.all.schema)
        let ingestor = Ingestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: { IngestBenchmark.receivedAt }), cores: 1)
        return try ingest(lines, ingestor: ingestor)
    }

    private func ingest(_ lines: [String], ingestor: Ingestor) throws -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        var rejected: [String] = []
        ingestor.ingest(stream: BatchSequence(lines: lines, size: Self.batchSize, parser: JSONParser())) { results in
            for result in results where result.status == .rejected { rejected.append(result.message ?? "") }
        }
        guard rejected.isEmpty else {
            throw Problem(description: "\(rejected.count) events were refused: \(rejected[0])")
        }
        let (seconds, attoseconds) = (clock.now - started).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
