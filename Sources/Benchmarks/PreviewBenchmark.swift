import Core
import Engine
import Features
import Foundation
import JQ
import Revisions
import RuleEngine
import SQLiteStore
import Store

/// The impact preview of an unchanged candidate over a week with many active dogs (each
/// screen decision of every dog, and every event of the window replayed under both rule sets
/// on scratch copies), beside the live work it repeats, measured in the same run on the same
/// store: ingesting those events once and computing every dog's decisions once.
struct PreviewBenchmark {
    var options: BenchmarkOptions
    static let now = Timestamp.parse("2026-11-29T12:00:00Z")!

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        let (ruleSet, evaluator) = try options.loadRules()
        let dogs = options.dogs
        let perDog = max(1, options.events / dogs)
        print(
            "journey-bench preview: \(dogs) dogs (registered a month ago) with \(perDog) events each in the last 7 days, every feature\n"
        )

        // The dogs were registered a month ago; live: the window's events through the ingest path, once.
        let file = TemporaryFile()
        let store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(lateWindow: .seconds(40 * 86_400), clock: { Self.now }), cores: 1)
        let clock = ContinuousClock()
        var refused: [String] = []
        func ingest(_ lines: [String]) -> Double {
            let started = clock.now
            ingestor.ingest(stream: BatchSequence(lines: lines, size: 500, parser: JSONParser())) { results in
                for result in results where result.status == .rejected { refused.append(result.message ?? "") }
            }
            return (clock.now - started).seconds
        }
        _ = ingest(Self.registrations(dogs: dogs))
        let lines = Self.events(dogs: dogs, perDog: perDog)
        let ingestSeconds = ingest(lines)
        guard refused.isEmpty else { throw Problem(description: "\(refused.count) events were refused: \(refused[0])") }
        var started = clock.now

        // Live: every dog's screen decisions, once.
        let views = RuleEvaluator(ruleSet: ruleSet)
        Features.all.prepare(views, reader: store)
        started = clock.now
        for dog in 0..<dogs {
            _ = try Features.all.previewDecisions(dog: "d\(dog)", store: store, evaluators: [views], now: Self.now)
        }
        let viewSeconds = (clock.now - started).seconds

        // One scratch copy of the store as it was at the window's start (the preview makes two).
        started = clock.now
        _ = try store.scratchCopy(before: Self.now - 7 * 86_400)
        let copySeconds = (clock.now - started).seconds

        // The preview: both sides of each, on the same data.
        started = clock.now
        let report = try ImpactPreview(store: store, engine: Features.all).run(
            active: RuleEvaluator(ruleSet: ruleSet), candidate: RuleEvaluator(ruleSet: ruleSet),
            since: Self.now - 7 * 86_400, now: Self.now)
        let previewSeconds = (clock.now - started).seconds
        let replay = report.events
        guard report.changedCount == 0, replay?.changedEvents == 0 else {
            throw Problem(description: "an unchanged candidate changed something: \(report.text)")
        }
        let live = ingestSeconds + viewSeconds
        print(
            table(
                header: ["work", "seconds"],
                rows: [
                    ["live: ingest \(lines.count) events", String(format: "%.2f", ingestSeconds)],
                    ["live: \(dogs) dogs' decisions", String(format: "%.2f", viewSeconds)],
                    ["live, together", String(format: "%.2f", live)],
                    [
                        "preview: \(report.dogs) dogs, \(replay?.replayed ?? 0) events, both sides",
                        String(format: "%.2f", previewSeconds),
                    ],
                    ["  of which the events replayed twice", String(format: "%.2f", replay?.seconds ?? 0)],
                    ["  one scratch copy (the replay makes two)", String(format: "%.2f", copySeconds)],
                ]))
        print(
            String(
                format: "\npreview / live: %.2f× (it does the live work twice, once per rule set, plus two copies)",
                previewSeconds / live))
    }

    /// Each dog's registration, a month before.
    static func registrations(dogs: Int) -> [String] {
        let at = Timestamp.format(now - 30 * 86_400)
        return (0..<dogs).map { dog in
            #"{"event_id":"reg","user_id":"u\#(dog)","type":"dog_registered","occurred_at":"\#(at)","dog_id":"d\#(dog)","payload":{"name":"Dog \#(dog)","age_range":"4-8m","timezone":"Europe/Berlin","metrics":{"bond":\#(dog % 100),"recall":\#((dog * 7) % 100)}}}"#
        }
    }

    /// Per dog, in the window: weights, journey openings and taps over six days.
    static func events(dogs: Int, perDog: Int) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(dogs * perDog)
        let start = now - 6.9 * 86_400
        for dog in 0..<dogs {
            for i in 0..<perDog {
                let at = Timestamp.format(start + Double(i) * 6 * 86_400 / Double(perDog))
                switch i % 3 {
                case 0:
                    lines.append(
                        #"{"event_id":"e\#(i)","user_id":"u\#(dog)","type":"weight_saved","occurred_at":"\#(at)","dog_id":"d\#(dog)","payload":{"kg":\#(8 + i % 10).5}}"#
                    )
                case 1:
                    lines.append(
                        #"{"event_id":"e\#(i)","user_id":"u\#(dog)","type":"journey_opened","occurred_at":"\#(at)","dog_id":"d\#(dog)"}"#
                    )
                default:
                    lines.append(
                        #"{"event_id":"e\#(i)","user_id":"u\#(dog)","type":"tap","occurred_at":"\#(at)","payload":{"element_id":"plus","screen":"today"}}"#
                    )
                }
            }
        }
        return lines
    }
}
