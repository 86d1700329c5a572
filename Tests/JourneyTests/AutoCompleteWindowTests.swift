import Core
import Journey
import RuleEngine
import Store
import TestSupport
import Testing

/// An `auto_complete` rule sees a window of the dog's history (the kind's contract): the newest
/// 100 records of each kind, so one kind's flood neither grows the evaluation nor hides another
/// kind's records.
struct AutoCompleteWindowTests {
    @Test func aFloodOfWeightsIsCutToTheNewestHundred() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        let start = journey.clock
        for index in 0..<150 {
            try journey.store.insertRecord(
                ProfileRecord(
                    dogID: "miso", kind: "weight", recordedAt: start + Double(index), recordedAtText: "w\(index)",
                    payload: ["kg": .number(Double(index))], source: "app"),
                event: nil)
        }
        try journey.store.insertRecord(
            ProfileRecord(
                dogID: "miso", kind: "vaccine", recordedAt: start - 86400, recordedAtText: "v",
                payload: ["vaccine": "DHPP"],
                source: "app"),
            event: nil)
        let state = try journey.views.state("miso")
        let dog = try #require(try journey.store.dog("miso"))
        func evidence(_ blockID: String) throws -> [JSON] {
            let block = try #require(state.map.block(blockID))
            let rule = try #require(block.autoCompleteRule)
            let input = try AutoComplete.input(
                for: block, dog: dog, store: journey.store, reads: journey.evaluator.ruleSet.rule(rule)?.reads,
                now: start + 3600)
            let found = try journey.evaluator.evaluate(rule, input: input, options: .init(now: start + 3600))
            let count = try AutoComplete.evidenceCount(
                for: block, rule: rule, dog: dog, store: journey.store, evaluator: journey.evaluator, now: start + 3600)
            let evidence = try #require(found.value?.arrayValue)
            #expect(count == evidence.count, "counted as libjq gave it: what the converted result holds")
            return evidence
        }
        let weights = try evidence("weight-baseline")
        #expect(weights.count == AutoComplete.recordsPerKind)
        #expect(weights.first?["kg"] == 50 && weights.last?["kg"] == 149, "the newest, oldest first")
        #expect(try evidence("vaccination-record").count == 1, "another kind keeps its records")
    }

    /// The input is built from the rows as libjq values; it must be the value the kind's
    /// contract describes, member for member, as built from the stored records and events.
    @Test func theInputIsTheRecordsAndEventsAsStored() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        journey.send("observation_recorded", ["field": "coat", "value": "glossy 🐕 \"shiny\""])
        let start = journey.clock
        let payloads: [JSON] = [["kg": 9.5], ["kg": .null, "note": ["nested": [1, 2]]]]
        for (index, payload) in payloads.enumerated() {
            try journey.store.insertRecord(
                ProfileRecord(
                    dogID: "miso", kind: "weight", recordedAt: start + Double(index), recordedAtText: "w\(index)",
                    payload: payload, source: "app", blockID: index == 0 ? "weight-baseline" : nil),
                event: nil)
        }
        let dog = try #require(try journey.store.dog("miso"))
        let block = try #require(try journey.views.state("miso").map.block("weight-baseline"))
        let records: [JSON] = try journey.store.newestRecords(dog: "miso", perKind: AutoComplete.recordsPerKind).map {
            [
                "id": .string("r-\($0.id ?? 0)"), "kind": .string($0.kind), "recorded_at": .string($0.recordedAtText),
                "recorded_ts": .number($0.recordedAt), "source": .string($0.source),
                "block_id": $0.blockID.map(JSON.string) ?? .null, "payload": $0.payload,
            ]
        }
        let events: [JSON] = try journey.store.events(dog: "miso", limit: AutoComplete.eventWindow).map {
            [
                "event_id": .string($0.eventID), "type": .string($0.type), "occurred_at": .string($0.occurredAtText),
                "payload": $0.payload,
            ]
        }
        let expected: JSON = [
            "dog": dog.json, "block": ["id": .string(block.id), "action": block.action, "unlocked_ts": .null],
            "records": .array(records),
            "events": .array(events),
        ]
        let input = try AutoComplete.input(for: block, dog: dog, store: journey.store, now: journey.clock).json()
        #expect(records.count >= 3 && events.count == 2)
        #expect(input == expected)
        #expect(input.compactText == expected.compactText, "members in the contract's order")
    }
}
