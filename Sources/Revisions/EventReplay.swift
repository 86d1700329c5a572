import Core
import Dispatch
import Engine
import FeatureKit
import RuleEngine
import Store

/// The window's accepted events replayed through one rule set's consumers, in `occurred_at`
/// order, on a scratch copy of the store as it was at the window's start: what each event
/// would have done. The real store is only read (to make the copy).
struct EventReplay {
    /// One result per event, in the order given.
    var results: [IngestResult]
    /// The copy the events were replayed on (it keeps each effect's provenance).
    var scratch: ScratchStore

    /// Events are replayed as they were accepted: the time rules are not applied again.
    static let batchSize = 500

    static func run(
        _ events: [StoredEvent], on scratch: ScratchStore, evaluator: RuleEvaluator, engine: FeatureSet,
        now: Double, cores: Int = 1
    ) -> EventReplay {
        let forever = Duration.seconds(100 * 366 * 86_400)
        let ingestor = engine.makeIngestor(
            store: scratch.store, evaluator: evaluator,
            policy: IngestPolicy(lateWindow: forever, clockSkew: forever, clock: { now }), cores: cores)
        var results: [IngestResult] = []
        results.reserveCapacity(events.count)
        var start = 0
        while start < events.count {
            let batch = events[start..<min(start + batchSize, events.count)]
            results += ingestor.ingest(batch.map(\.appEvent))
            start += batchSize
        }
        return EventReplay(results: results, scratch: scratch)
    }

    /// The consumer that made effect `index` of the replayed event `event`.
    func origin(of event: StoredEvent, effect index: Int) -> String? {
        let replayed = try? scratch.store.event(user: event.userID, eventID: event.eventID)
        return replayed?.provenance[index]?["consumer"]?.stringValue
    }
}

extension StoredEvent {
    /// The event as the app sent it.
    var appEvent: JSON {
        var object: JSONObject = [
            "event_id": .string(eventID), "user_id": .string(userID), "type": .string(type),
            "occurred_at": .string(occurredAtText), "payload": payload,
        ]
        if let dogID { object["dog_id"] = .string(dogID) }
        return .object(object)
    }
}

/// The two replays of a preview (active, candidate), side by side on threads of their own
/// while the caller compares the views: each side makes its own evaluator (from the rule set)
/// and has its own scratch copy (its own SQLite connection); only the events, which are only
/// read, are shared.
///
/// `@unchecked Sendable`: slot `i` is written by side `i`'s thread only, and read after
/// ``finish()`` has waited for both.
final class ReplaySides: @unchecked Sendable {
    let events: [StoredEvent]
    let ruleSets: [RuleSet]
    let scratches: [ScratchStore]
    let engine: FeatureSet
    let now: Double
    private let group = DispatchGroup()

    /// One per side, written by that side's thread only.
    private final class Slot: @unchecked Sendable {
        var replay: EventReplay?
    }
    private let slots: [Slot]

    init(events: [StoredEvent], ruleSets: [RuleSet], scratches: [ScratchStore], engine: FeatureSet, now: Double) {
        self.events = events
        self.ruleSets = ruleSets
        self.scratches = scratches
        self.engine = engine
        self.now = now
        slots = ruleSets.map { _ in Slot() }
    }

    /// Starts every side on a thread of its own.
    func start() {
        for side in ruleSets.indices {
            DispatchQueue.global().async(group: group) { [self] in
                slots[side].replay = EventReplay.run(
                    events, on: scratches[side], evaluator: RuleEvaluator(ruleSet: ruleSets[side]), engine: engine,
                    now: now)
            }
        }
    }

    /// Each side's replay, in the order of the rule sets, once all are done.
    func finish() -> [EventReplay] {
        group.wait()
        return slots.map { $0.replay! }
    }
}
