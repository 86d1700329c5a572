import Core
import Engine
import Features
import Foundation
import JQ
import JQBaseline
import Journey
import RuleEngine
import SQLiteStore
import Store

/// Today and a branch path for a dog with 300 records, split into store reads, rule
/// evaluation and assembly, beside the raw cost of the same rules (a plain C loop over libjq
/// on the same inputs), in one run.
struct ViewBenchmark {
    var options: BenchmarkOptions

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The ingest clock, moved by the setup. `@unchecked Sendable`: used from one thread.
    final class Clock: @unchecked Sendable {
        var now = Timestamp.parse("2026-11-20T08:00:00Z")!
    }

    func run() throws {
        let loaded = Features.all.loader(rulesDirectory: options.rulesDirectory, pluginsDirectory: "Plugins").load()
        guard let evaluator = loaded.evaluator, let ruleSet = loaded.ruleSet else {
            throw Problem(
                description: "the rules do not load: \(loaded.diagnostics.map(\.description).joined(separator: "\n"))")
        }
        let file = TemporaryFile()
        let store = try SQLiteStore(path: file.path, schema: Features.all.schema)
        let clock = Clock()
        try setUp(store: store, evaluator: evaluator, clock: clock)
        let dog = "bench-dog"
        if let locale = options.only {
            return try LocaleViewBenchmark(options: options).runOnly(
                locale, store: store, evaluator: evaluator, now: clock.now, dog: dog)
        }
        let views = JourneyViews(store: store, evaluator: evaluator, now: clock.now)
        // The same dog 60 days on: its weights are older than the offer's 30 days.
        let later = JourneyViews(store: store, evaluator: evaluator, now: clock.now + 60 * 86_400)

        // The inputs of the rules the views evaluate, built once, for the raw baseline.
        let state = try views.state(dog)
        let recommendationText = state.recommendationInput.compactText
        let recommended = try require(state.recommended.flatMap(state.map.block), "nothing recommended")
        let records = try store.records(dog: dog, kind: nil)
        let autoCompleteRule = try require(recommended.autoCompleteRule, "the recommended block has no auto-complete")
        // The input Today builds: the window narrowed to what the rule `reads` (its kinds and
        // time, so it depends on `now`). The raw baseline takes the window narrowed by kind
        // alone: what the rule needs to decide when nothing narrows it by time for it.
        let reads = ruleSet.rule(autoCompleteRule)?.reads
        let kindsOnly = reads.map { InputSelection($0.members) }
        func offerInput(now: Double, reads: InputSelection?) throws -> JV {
            try AutoComplete.input(for: recommended, dog: state.map.dog, store: store, reads: reads, now: now)
        }
        let offers = [("offer", views.now), ("offer.later", later.now)]
        let offerInputs = try Dictionary(
            uniqueKeysWithValues: offers.map { ($0.0, try offerInput(now: $0.1, reads: reads)) })
        let rawInputText = try offerInput(now: views.now, reads: kindsOnly).compactText
        let library = ruleSet.libraryDirectory
        let recommendationDefinition = try require(
            ruleSet.rule(JourneyRules.recommendation), "no recommendation rule")
        let (recommendationProgram, recommendationConstants) = baselineProgram(
            recommendationDefinition, recommendationDefinition.defaultVariant.expression.source)
        let recommendationSource = pinningNow(recommendationProgram, at: clock.now)
        let autoCompleteDefinition = try require(ruleSet.rule(autoCompleteRule), "no rule \(autoCompleteRule)")
        let (autoCompleteText, autoCompleteConstants) = baselineProgram(
            autoCompleteDefinition, autoCompleteDefinition.defaultVariant.expression.source)
        let offerFound = try AutoComplete.evidenceCount(
            for: recommended, rule: autoCompleteRule, dog: state.map.dog, store: store, evaluator: evaluator,
            now: views.now)
        let offerLater = try AutoComplete.evidenceCount(
            for: recommended, rule: autoCompleteRule, dog: state.map.dog, store: store, evaluator: evaluator,
            now: later.now)

        print("journey-bench views: Today and a branch path, for a dog with \(records.count) records")
        print("\(options.iterations) views per round, \(options.rounds) alternating rounds, medians (µs per view)\n")

        var measures: [String: [Double]] = [:]
        for _ in 0..<options.rounds {
            measures["today", default: []].append(measure { _ = try? views.today(dog) })
            measures["today.later", default: []].append(measure { _ = try? later.today(dog) })
            measures["path", default: []].append(measure { _ = try? views.path(dog, branch: "health") })
            // What the views read per view: the journey map (manifest and catalog) is built once
            // per store and kept, so it is not read again.
            measures["reads.path", default: []].append(
                measure {
                    _ = try? store.dog(dog)
                    _ = try? store.blockSteps(dog: dog)
                })
            measures["reads.today", default: []].append(measure { _ = try? store.interpretationReadAt(dog: dog) })
            let recommendationInput = JV(state.recommendationInput)
            measures["rules.recommendation", default: []].append(
                measure { _ = try? evaluator.evaluate(JourneyRules.recommendation, input: recommendationInput) })
            for (name, now) in offers {
                let since = reads?.since(now: now)
                measures["reads.\(name)", default: []].append(
                    measure {
                        _ = try? store.newestRecords(
                            dog: dog, perKind: AutoComplete.recordsPerKind,
                            kinds: reads?.values(of: AutoComplete.recordList.member), since: since
                        ) { $0.integer(0) }
                        _ = try? store.latestEvents(
                            dog: dog, limit: AutoComplete.eventWindow,
                            types: reads?.values(of: AutoComplete.eventList.member), since: since
                        ) { $0.integer(0) }
                    })
                // Reads and builds the input: the reads are subtracted below.
                measures["inputs.\(name)+reads", default: []].append(
                    measure { _ = try? offerInput(now: now, reads: reads) })
                let autoCompleteInput = offerInputs[name]!
                measures["rules.\(name)", default: []].append(
                    measure {
                        // As Today evaluates it: the evidence counted, not converted.
                        _ = try? evaluator.evaluate(
                            autoCompleteRule, input: autoCompleteInput, options: .init(now: now), reading: \.count)
                    })
                measures["raw.\(name)", default: []].append(
                    jqb_ns_per_eval_prebuilt(
                        pinningNow(autoCompleteText, at: now), library, autoCompleteConstants, rawInputText,
                        options.iterations, nil) / 1000)
            }
            measures["inputs.recommendation", default: []].append(measure { _ = JV(state.recommendationInput) })
            measures["raw.recommendation", default: []].append(
                jqb_ns_per_eval_prebuilt(
                    recommendationSource, library, recommendationConstants, recommendationText, options.iterations, nil)
                    / 1000)
        }
        let m = measures.mapValues(median)
        func row(_ name: String, _ total: Double, reads: Double, rules: Double, inputs: Double, raw: Double) -> [String]
        {
            let assembly = max(total - reads - rules - inputs, 0)
            return [
                name, format(total), format(reads), format(inputs), format(rules), format(assembly), format(raw),
                raw > 0 ? String(format: "%.1f×", total / raw) : "—",
            ]
        }
        let header = [
            "view", "total", "store reads", "rule inputs", "rule evaluation", "assembly", "raw rules (C)", "total/raw",
        ]
        // While the manifest's stored block is open the views serve it without evaluating the
        // recommendation rule (DJ-08), so the rule counts only when it ran.
        let ranRecommendation = state.recommended != state.map.recommendedBlockID
        let recommendationRule = ranRecommendation ? m["rules.recommendation"]! : 0
        let recommendationInput = ranRecommendation ? m["inputs.recommendation"]! : 0
        let recommendationRaw = ranRecommendation ? m["raw.recommendation"]! : 0
        func today(_ name: String, _ offer: String, found: Int) -> [String] {
            row(
                "Today, \(found) found", m[name]!, reads: m["reads.path"]! + m["reads.today"]! + m["reads.\(offer)"]!,
                rules: recommendationRule + m["rules.\(offer)"]!,
                inputs: recommendationInput + max(m["inputs.\(offer)+reads"]! - m["reads.\(offer)"]!, 0),
                raw: recommendationRaw + m["raw.\(offer)"]!)
        }
        let rows = [
            today("today", "offer", found: offerFound),
            today("today.later", "offer.later", found: offerLater),
            row(
                "Branch path", m["path"]!, reads: m["reads.path"]!, rules: recommendationRule,
                inputs: recommendationInput, raw: recommendationRaw),
        ]
        print(table(header: header, rows: rows))
        print(
            """

            Today reads the dog, its steps and when its interpretation was read (its journey map, the
            manifest and catalog, is built once per store and kept), and for the offer on the recommended block
            (\(recommended.id)) its newest \(AutoComplete.recordsPerKind) records of each kind and \(AutoComplete.eventWindow) latest events, narrowed to what
            the rule reads (\(reads.map { "reads: " + $0.description } ?? "no `reads:`, the whole window")); it evaluates
            that block's auto-complete rule (\(autoCompleteRule)); the recommendation rule \(ranRecommendation ? "too" : "not: the manifest's recommended block is open").
            "Today, N found": the rule finds N weights of the last 30 days (the second row is the same
            dog 60 days later, when its weights are too old to count: no offer).
            A branch path reads the dog and its steps (and evaluates the recommendation when it runs).
            store reads: the rows alone; rule inputs: the libjq values built from them.
            assembly = total − store reads − rule inputs − rule evaluation (JSON of the view, statuses).
            raw rules: the same programs in a plain C loop over libjq, `now` pinned, on the same inputs,
            except that the offer's is narrowed by kind alone (\(kindsOnly.map { "reads: " + $0.description } ?? "the whole window")):
            the records the rule needs to decide when the engine does not drop the older ones for it.
            """)
        try LocaleViewBenchmark(options: options).run(store: store, evaluator: evaluator, now: clock.now, dog: dog)
        TextBenchmark(options: options).run(ruleSet: ruleSet)
    }

    /// A dog with 300 records whose weakest metric is body condition (so Today offers to count
    /// its weights), three blocks done through the block flow.
    private func setUp(store: SQLiteStore, evaluator: RuleEvaluator, clock: Clock) throws {
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator,
            policy: IngestPolicy(clock: { [clock] in clock.now + 60 }), cores: 1)
        var counter = 0
        func send(_ type: String, _ payload: JSONObject) throws {
            counter += 1
            clock.now += 60
            let result = ingestor.ingest([
                [
                    "event_id": .string("b-\(counter)"), "user_id": "bench", "type": .string(type),
                    "occurred_at": .string(Timestamp.format(clock.now)), "dog_id": "bench-dog",
                    "payload": .object(payload),
                ]
            ])[0]
            guard result.status == .accepted else { throw Problem(description: "setup: \(result.json.compactText)") }
        }
        try send(
            "dog_registered",
            [
                "name": "Bench", "age_range": "4-8m", "breed": "border_collie", "timezone": "Europe/Berlin",
                "metrics": [
                    "bond": 60, "impulse_control": 40, "socialization": 55, "body_condition": 20, "dental": 70,
                    "coat": 66,
                    "exercise": 58, "recall": 45,
                ],
            ])
        for block in ["bond-building-games", "breed-traits"] {
            let map = try JourneyViews(store: store, evaluator: evaluator, now: clock.now).state("bench-dog").map
            let check = map.block(block)?.content["check"] ?? [:]
            try send("block_started", ["block_id": .string(block)])
            try send("theory_viewed", ["block_id": .string(block)])
            try send(
                "check_answered",
                ["block_id": .string(block), "answer": ["option": check["options"]?[0]?["id"] ?? .null]])
            try send("observation_recorded", ["field": "bench", "value": .string(block)])
        }
        for i in 0..<300 {
            let at = clock.now - Double(300 - i) * 3600
            try store.insertRecord(
                ProfileRecord(
                    dogID: "bench-dog", kind: i % 2 == 0 ? "weight" : "observation", recordedAt: at,
                    recordedAtText: Timestamp.format(at),
                    payload: i % 2 == 0 ? ["kg": .number(9 + Double(i) / 100)] : ["field": "coat", "value": "glossy"],
                    source: "app"), event: nil)
        }
    }

    private func measure(_ body: () -> Void) -> Double { microsecondsPerCall(options.iterations, body) }

    private func format(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// `try #require`-like: the value, or a problem naming what is missing.
func require<T>(_ value: T?, _ message: String) throws -> T {
    guard let value else { throw ViewBenchmark.Problem(description: message) }
    return value
}
