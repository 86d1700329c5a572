import Core
import Engine
import Store

/// What a candidate would change in the effects of the window's events: each event replayed
/// under the active rules and under the candidate (``EventReplay``), compared effect by effect.
public struct EventImpact: Sendable {
    public struct Example: Sendable {
        public var user: String
        public var eventID: String
        public var type: String
        public var before: JSON
        public var after: JSON
        /// The consumers (`rule:…`) whose effects differ.
        public var consumers: [String]
    }

    /// One effect type's changes: effects only the active rules make (removed), only the
    /// candidate makes (added), and the events they belong to.
    public struct Change: Sendable {
        public var events = 0
        public var added = 0
        public var removed = 0
        public var examples: [Example] = []
    }

    /// Events replayed, and the users they belong to.
    public var replayed = 0
    public var users = 0
    /// Events whose effects (or acceptance) differ.
    public var changedEvents = 0
    /// By effect type (`record_added`).
    public var byEffect: [String: Change] = [:]
    /// By consumer that made a differing effect (`rule:events.records`): events.
    public var byConsumer: [String: Int] = [:]
    /// Events the candidate refuses though the active rules accept them (or the reverse).
    public var refusals = Change()
    /// Events whose replay under the active rules differs from the outcome stored for them
    /// (made by an earlier revision, or by state the replay's copy cannot go back to).
    public var storedDiffers = Change()
    public var seconds = 0.0

    static func compare(
        _ events: [StoredEvent], active: EventReplay, candidate: EventReplay, examples: Int
    ) -> EventImpact {
        var impact = EventImpact(replayed: events.count, users: Set(events.map(\.userID)).count)
        for (index, event) in events.enumerated() {
            let before = active.results[index]
            let after = candidate.results[index]
            let stored = event.outcome.arrayValue ?? []
            if before.status != .accepted || before.effects != stored {
                impact.storedDiffers.events += 1
                if impact.storedDiffers.examples.count < examples {
                    impact.storedDiffers.examples.append(
                        Example(
                            user: event.userID, eventID: event.eventID, type: event.type, before: .array(stored),
                            after: before.status == .accepted ? .array(before.effects) : before.json, consumers: []))
                }
            }
            guard before.status != after.status || before.effects != after.effects else { continue }
            impact.changedEvents += 1
            if (before.status == .rejected) != (after.status == .rejected) {
                impact.refusals.events += 1
                if impact.refusals.examples.count < examples {
                    impact.refusals.examples.append(
                        Example(
                            user: event.userID, eventID: event.eventID, type: event.type, before: before.json,
                            after: after.json, consumers: []))
                }
                continue
            }
            let removed = Self.subtract(after.effects, from: before.effects)
            let added = Self.subtract(before.effects, from: after.effects)
            var consumers = Set<String>()
            for (effect, effectIndex) in removed {
                consumers.insert(active.origin(of: event, effect: effectIndex) ?? "?")
                impact.byEffect[Self.type(effect), default: Change()].removed += 1
            }
            for (effect, effectIndex) in added {
                consumers.insert(candidate.origin(of: event, effect: effectIndex) ?? "?")
                impact.byEffect[Self.type(effect), default: Change()].added += 1
            }
            for consumer in consumers { impact.byConsumer[consumer, default: 0] += 1 }
            for type in Set((removed + added).map { Self.type($0.effect) }) {
                var change = impact.byEffect[type] ?? Change()
                change.events += 1
                if change.examples.count < examples {
                    change.examples.append(
                        Example(
                            user: event.userID, eventID: event.eventID, type: event.type,
                            before: .array(before.effects.filter { Self.type($0) == type }),
                            after: .array(after.effects.filter { Self.type($0) == type }),
                            consumers: consumers.sorted()))
                }
                impact.byEffect[type] = change
            }
        }
        return impact
    }

    /// The effects of `minuend` (with their index) that `subtrahend` lacks, as multisets.
    static func subtract(_ subtrahend: [JSON], from minuend: [JSON]) -> [(effect: JSON, index: Int)] {
        var left = subtrahend
        var remaining: [(effect: JSON, index: Int)] = []
        for (index, effect) in minuend.enumerated() {
            if let match = left.firstIndex(of: effect) {
                left.remove(at: match)
            } else {
                remaining.append((effect, index))
            }
        }
        return remaining
    }

    static func type(_ effect: JSON) -> String { effect["type"]?.stringValue ?? "?" }

    public var json: JSON {
        func change(_ change: Change) -> JSON {
            [
                "event_count": .number(Double(change.events)), "added": .number(Double(change.added)),
                "removed": .number(Double(change.removed)),
                "examples": .array(
                    change.examples.map {
                        [
                            "user_id": .string($0.user), "event_id": .string($0.eventID), "type": .string($0.type),
                            "before": $0.before, "after": $0.after,
                            "consumers": .array($0.consumers.map(JSON.string)),
                        ]
                    }),
            ]
        }
        return [
            "replayed": .number(Double(replayed)), "users": .number(Double(users)),
            "changed": .number(Double(changedEvents)), "stored_differs": change(storedDiffers),
            "seconds": .number((seconds * 1000).rounded() / 1000),
            "by_effect": .object(JSONObject(byEffect.sorted { $0.key < $1.key }.map { ($0.key, change($0.value)) })),
            "by_consumer": .object(
                JSONObject(byConsumer.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) })),
            "refusals": change(refusals),
        ]
    }

    public var text: String {
        var text =
            "events: \(replayed) replayed for \(users) user\(users == 1 ? "" : "s"), \(changedEvents) would have other effects (\(String(format: "%.2f", seconds)) s)\n"
        if storedDiffers.events > 0 {
            text +=
                "  (\(storedDiffers.events) replayed under the active rules differ from their stored outcome: made by an earlier revision, or by state the copy cannot go back to)\n"
        }
        for (consumer, events) in byConsumer.sorted(by: { $0.key < $1.key }) {
            text += "consumer \(consumer): its effects differ for \(events) event\(events == 1 ? "" : "s")\n"
        }
        for (type, change) in byEffect.sorted(by: { $0.key < $1.key }) {
            text +=
                "\n\(type): \(change.events) event\(change.events == 1 ? "" : "s"), +\(change.added) −\(change.removed)\n"
            for example in change.examples {
                text +=
                    "  \(example.user)/\(example.eventID) \(example.type): \(example.before.compactText) → \(example.after.compactText)\n"
            }
        }
        if refusals.events > 0 {
            text += "\nrefused or accepted differently: \(refusals.events) event\(refusals.events == 1 ? "" : "s")\n"
            for example in refusals.examples {
                let after = example.after["message"]?.stringValue ?? example.after["status"]?.stringValue ?? ""
                text += "  \(example.user)/\(example.eventID) \(example.type): \(after)\n"
            }
        }
        return text
    }
}
