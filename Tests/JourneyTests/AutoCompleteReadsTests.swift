import Core
import Features
import Journey
import RuleEngine
import Store
import TestSupport
import Testing

/// An `auto_complete` rule that declares what it `reads` gets the kind's window narrowed to
/// those record kinds and event types: the same records and events it would have found in the
/// whole window, the others neither read nor built; and its inline tests see the same.
@Suite struct AutoCompleteReadsTests {
    static let reads = InputSelection(["records": ["weight"], "events": ["course_started"]])

    @Test func theNarrowedInputIsTheWindowWithoutTheOthers() throws {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        // Older than the newest 200 events: outside the window with or without `reads`.
        journey.send("course_started", ["course_id": "old-course"])
        for _ in 0..<AutoComplete.eventWindow { journey.send("journey_opened") }
        journey.send("course_started", ["course_id": "impulse-101"])
        let start = journey.clock
        for index in 0..<120 {
            for kind in ["weight", "vaccine"] {
                try journey.store.insertRecord(
                    ProfileRecord(
                        dogID: "miso", kind: kind, recordedAt: start + Double(index), recordedAtText: "\(kind)\(index)",
                        payload: ["n": .number(Double(index))], source: "app"),
                    event: nil)
            }
        }
        let dog = try #require(try journey.store.dog("miso"))
        let block = try #require(try journey.views.state("miso").map.block("weight-baseline"))
        let whole = try AutoComplete.input(for: block, dog: dog, store: journey.store, now: journey.clock).json()
        let narrowed = try AutoComplete.input(
            for: block, dog: dog, store: journey.store, reads: Self.reads, now: journey.clock
        ).json()

        #expect(
            narrowed
                == Self.reads.apply(to: whole, selectable: RuleKind.autoComplete.selectableInputs, now: journey.clock))
        let records = narrowed["records"]?.arrayValue ?? []
        #expect(records.count == AutoComplete.recordsPerKind && records.allSatisfy { $0["kind"] == "weight" })
        #expect(records.first?["payload"]?["n"] == 20, "the newest hundred weights, oldest first")
        let courses = narrowed["events"]?.arrayValue?.compactMap { $0["payload"]?["course_id"]?.stringValue }
        #expect(courses == ["impulse-101"], "the window does not move to find an older course_started")

        let nothing = InputSelection(["records": [], "events": []])
        let empty = try AutoComplete.input(
            for: block, dog: dog, store: journey.store, reads: nothing, now: journey.clock
        ).json()
        #expect(empty["records"] == [] && empty["events"] == [] && empty["dog"] == whole["dog"])
    }

    /// `within` keeps the elements of the window at or after `now − within`: the engine's rows
    /// (each kind's newest since then, the newest events since then) are exactly the whole
    /// window narrowed as the tests narrow it. A dog with 300 weights two minutes apart, 10
    /// vaccines an hour apart and 300 events a minute apart, from `s`; `now` is `s` + hours.
    @Test(arguments: [
        // The boundary: `since` is exactly weight 270 and vaccine 9, both kept.
        (within: "1h", nowHours: 10.0, weights: 31, vaccines: 2, events: 0),
        // More weights since then than the window: the newest 100, as without `within`.
        (within: "6h", nowHours: 10.0, weights: 100, vaccines: 7, events: 61),
        // Records after `now` are not dropped (the rule decides about the future).
        (within: "30m", nowHours: 5.0, weights: 100, vaccines: 6, events: 31),
        (within: "30d", nowHours: 10.0, weights: 100, vaccines: 10, events: 200),
    ])
    func aTimeWindowIsTheWindowWithoutTheOlder(
        within: String, nowHours: Double, weights: Int, vaccines: Int, events: Int
    )
        throws
    {
        let journey = try JourneyHarness(now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        let s = journey.clock
        for _ in 0..<300 { journey.send("journey_opened") }
        func record(_ kind: String, at: Double) throws {
            try journey.store.insertRecord(
                ProfileRecord(
                    dogID: "miso", kind: kind, recordedAt: at, recordedAtText: Timestamp.format(at), payload: [:],
                    source: "app"),
                event: nil)
        }
        for i in 1...300 { try record("weight", at: s + Double(i) * 120) }
        for h in 1...10 { try record("vaccine", at: s + Double(h) * 3600) }
        let dog = try #require(try journey.store.dog("miso"))
        let block = try #require(try journey.views.state("miso").map.block("weight-baseline"))
        let now = s + nowHours * 3600
        let selectable = RuleKind.autoComplete.selectableInputs
        let duration = try #require(DurationText.parse(within))
        let whole = try AutoComplete.input(for: block, dog: dog, store: journey.store, now: now).json()

        let kinds = InputSelection(["records": ["weight", "vaccine"], "events": ["journey_opened"]], within: duration)
        let narrowed = try AutoComplete.input(for: block, dog: dog, store: journey.store, reads: kinds, now: now).json()
        #expect(narrowed == kinds.apply(to: whole, selectable: selectable, now: now))
        let records = narrowed["records"]?.arrayValue ?? []
        #expect(records.filter { $0["kind"] == "weight" }.count == weights)
        #expect(records.filter { $0["kind"] == "vaccine" }.count == vaccines)
        #expect(narrowed["events"]?.arrayValue?.count == events)

        // By time alone: every kind and type, each narrowed the same way.
        let timeOnly = InputSelection([:], within: duration)
        let byTime = try AutoComplete.input(for: block, dog: dog, store: journey.store, reads: timeOnly, now: now)
            .json()
        #expect(byTime == timeOnly.apply(to: whole, selectable: selectable, now: now))
    }

    /// A rule that reads a record kind it did not declare fails its own test: the tests see the
    /// input the engine would give it.
    @Test func aRuleThatReadsMoreThanItDeclaresFailsItsTests() throws {
        func outcome(reads: String) throws -> TestOutcome {
            let directory = try TemporaryDirectory()
            try directory.write(
                "r.yaml",
                """
                rule: counts_vaccines
                kind: auto_complete
                \(reads)
                expr: '[.records[] | select(.kind == "vaccine")]'
                tests:
                  - name: a vaccine is found
                    input:
                      dog: {id: d}
                      block: {id: b}
                      events: []
                      records: [{id: r1, kind: vaccine, recorded_at: "2026-11-19T08:00:00Z"}, {id: r2, kind: weight}]
                    now: "2026-11-29T08:00:00Z"
                    expect: [{id: r1, kind: vaccine, recorded_at: "2026-11-19T08:00:00Z"}]
                """)
            let loaded = Features.all.loader(rulesDirectory: directory.path, pluginsDirectory: nil).load()
            let ruleSet = try #require(loaded.ruleSet, "\(loaded.diagnostics)")
            return try #require(RuleTestRunner(evaluator: RuleEvaluator(ruleSet: ruleSet)).run().first)
        }
        #expect(try outcome(reads: "").status == .passed)
        #expect(try outcome(reads: "reads: {records: [vaccine], within: 30d}").status == .passed)
        #expect(
            try outcome(reads: "reads: {records: [vaccine], within: 1d}").status == .failed,
            "the vaccine of ten days before the test's `now` is outside a day")
        #expect(try outcome(reads: "reads: {records: [vaccine]}").status == .passed)
        let failed = try outcome(reads: "reads: {records: [weight]}")
        #expect(failed.status == .failed)
        #expect(failed.actual == [])
    }

    /// `reads` is part of what decides a rule's behaviour: it changes the rule's digest (and so
    /// the revision); a rule without it keeps the digest it had.
    @Test func readsIsPartOfTheDigest() throws {
        func digest(_ reads: String) throws -> String? {
            let directory = try TemporaryDirectory()
            try directory.write("r.yaml", "rule: r\nkind: auto_complete\n\(reads)\nexpr: '[]'\n")
            return Features.all.loader(rulesDirectory: directory.path, pluginsDirectory: nil).load().ruleSet?
                .digest(of: "r")
        }
        let plain = try #require(try digest(""))
        let weights = try digest("reads: {records: [weight]}")
        #expect(weights != nil && weights != plain)
        #expect(try digest("reads: {records: [weight, weight]}") == weights, "a set: order and repeats do not count")
        #expect(try digest("reads: {records: [vaccine]}") != weights)
        let month = try digest("reads: {records: [weight], within: 30d}")
        #expect(month != nil && month != weights)
        #expect(try digest("reads: {records: [weight], within: 720h}") == month, "the same time however written")
    }
}
