import Core
import Journey
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
            return try AutoComplete.evidence(
                for: block, rule: try #require(block.autoCompleteRule), dog: dog, store: journey.store,
                evaluator: journey.evaluator, now: start + 3600)
        }
        let weights = try evidence("weight-baseline")
        #expect(weights.count == AutoComplete.recordsPerKind)
        #expect(weights.first?["kg"] == 50 && weights.last?["kg"] == 149, "the newest, oldest first")
        #expect(try evidence("vaccination-record").count == 1, "another kind keeps its records")
    }
}
