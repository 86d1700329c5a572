import Core
import Engine
import Experiments
import Foundation
import JQ
import Onboarding
import RuleEngine
import Store
import TestSupport
import Testing

/// The onboarding engine through the one ingest path: triggers, skips, version upgrades,
/// variants by experiment, the view and the funnel.
struct OnboardingTests {
    static func step(_ id: String, _ trigger: String, canSkip: Bool = false) -> String {
        """
          - id: \(id)
            target_element_id: el_\(id)
            highlight: {shape: rectangle, corner_radius: 8}
            tooltip: {text: Do \(id), position: below}
            completion_trigger: \(trigger)
            can_skip: \(canSkip)
        """
    }

    static func flow(_ id: String = "tour", version: String = "1.0", steps: [String], extra: String = "") -> String {
        """
        flow: \(id)
        version: "\(version)"
        starts_on: [app_opened]
        \(extra)
        steps:
        \(steps.joined(separator: "\n"))
        """
    }

    static func engine(_ files: [String: String]) -> Engine? {
        RulesFolder(files).evaluator().map { Engine(evaluator: $0) }
    }

    static let t0 = Timestamp.parse("2026-11-29T12:00:00Z")!

    // MARK: Triggers

    struct TriggerCase: Sendable, CustomTestStringConvertible {
        var name: String
        var trigger: String
        /// Seconds after the step was shown, the event type and payload.
        var after: Double
        var type: String
        var payload: JSONObject
        var completes: Bool
        /// When the step counts as completed, seconds after it was shown.
        var completedAfter: Double? = nil
        var testDescription: String { name }
    }

    static let triggerCases: [TriggerCase] = [
        TriggerCase(
            name: "tap on the element", trigger: "{tap: plus}", after: 3, type: "ui_tap",
            payload: ["element_id": "plus"], completes: true, completedAfter: 3),
        TriggerCase(
            name: "tap elsewhere", trigger: "{tap: plus}", after: 3, type: "ui_tap", payload: ["element_id": "minus"],
            completes: false),
        TriggerCase(
            name: "a swipe is not a tap", trigger: "{tap: plus}", after: 3, type: "ui_swipe",
            payload: ["direction": "left", "element_id": "plus"], completes: false),
        TriggerCase(
            name: "swipe left", trigger: "{swipe: left}", after: 2, type: "ui_swipe", payload: ["direction": "left"],
            completes: true, completedAfter: 2),
        TriggerCase(
            name: "swipe the other way", trigger: "{swipe: left}", after: 2, type: "ui_swipe",
            payload: ["direction": "right"], completes: false),
        TriggerCase(
            name: "element became visible", trigger: "{visible: today_list}", after: 1, type: "ui_element_visible",
            payload: ["element_id": "today_list"], completes: true, completedAfter: 1),
        TriggerCase(
            name: "timer not yet run out", trigger: "{timer: 5}", after: 4.999, type: "ui_tap",
            payload: ["element_id": "anything"], completes: false),
        TriggerCase(
            name: "timer exactly run out", trigger: "{timer: 5}", after: 5, type: "ui_tap",
            payload: ["element_id": "anything"], completes: true, completedAfter: 5),
        TriggerCase(
            name: "timer long run out: done when it ran out", trigger: "{timer: 5}", after: 600, type: "app_heartbeat",
            payload: [:], completes: true, completedAfter: 5),
        TriggerCase(
            name: "custom jq: short text",
            trigger: #"{expr: '.event.type == "ui_text_changed" and (.event.payload.text | length) >= 3'}"#,
            after: 7, type: "ui_text_changed", payload: ["text": "ab"], completes: false),
        TriggerCase(
            name: "custom jq: long enough",
            trigger: #"{expr: '.event.type == "ui_text_changed" and (.event.payload.text | length) >= 3'}"#,
            after: 7, type: "ui_text_changed", payload: ["text": "abc"], completes: true, completedAfter: 7),
        TriggerCase(
            name: "custom jq reads the state",
            trigger: "{expr: '.state.elapsed_seconds > 10 and .step.id == \"only\"'}",
            after: 11, type: "ui_tap", payload: [:], completes: true, completedAfter: 11),
        TriggerCase(
            name: "event trigger: text of spaces only",
            trigger: #"{event: ui_text_changed, where: {element_id: name, text: {matches: "\\S"}}}"#,
            after: 4, type: "ui_text_changed", payload: ["element_id": "name", "text": "  "], completes: false),
        TriggerCase(
            name: "event trigger: some text",
            trigger: #"{event: ui_text_changed, where: {element_id: name, text: {matches: "\\S"}}}"#,
            after: 4, type: "ui_text_changed", payload: ["element_id": "name", "text": " a"], completes: true,
            completedAfter: 4),
        TriggerCase(
            name: "event trigger: another field",
            trigger: #"{event: ui_text_changed, where: {element_id: name, text: {matches: "\\S"}}}"#,
            after: 4, type: "ui_text_changed", payload: ["element_id": "note", "text": "a"], completes: false),
        TriggerCase(
            name: "event trigger: a prefix",
            trigger: "{event: ui_tap, where: {element_id: {prefix: category_option_}}}",
            after: 2, type: "ui_tap", payload: ["element_id": "category_option_3"], completes: true, completedAfter: 2),
        TriggerCase(
            name: "event trigger: not the prefix",
            trigger: "{event: ui_tap, where: {element_id: {prefix: category_option_}}}",
            after: 2, type: "ui_tap", payload: ["element_id": "category_done"], completes: false),
        TriggerCase(
            name: "event trigger: a number equals", trigger: "{event: ui_text_changed, where: {length: {equals: 3}}}",
            after: 2, type: "ui_text_changed", payload: ["length": 3], completes: true, completedAfter: 2),
        TriggerCase(
            name: "event trigger: the type alone", trigger: "{event: ui_swipe}",
            after: 2, type: "ui_swipe", payload: [:], completes: true, completedAfter: 2),
        TriggerCase(
            name: "events that are not from screens are not looked at", trigger: "{tap: plus}", after: 3,
            type: "weight_saved", payload: ["element_id": "plus"], completes: false),
    ]

    @Test(arguments: triggerCases)
    func trigger(_ testCase: TriggerCase) throws {
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: [Self.step("only", testCase.trigger)])]) else {
            return
        }
        let start = engine.send("u1", "app_opened", at: Self.t0)
        #expect(start.status == .accepted, "\(start.json)")
        let result = engine.send("u1", testCase.type, testCase.payload, at: Self.t0 + testCase.after)
        #expect(result.status == .accepted, "\(result.json)")
        let progress = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "tour@1"))
        #expect(progress.shownAt["only"] == Self.t0)
        let done = progress.steps["only"]
        #expect((done != nil) == testCase.completes)
        if let done, let after = testCase.completedAfter {
            #expect(done.completedAt == Self.t0 + after)
            #expect(!done.skipped)
            let analytics = result.effects.first { $0["name"] == "onboarding_step_completed" }
            #expect(analytics?["properties"]?["duration_seconds"]?.numberValue == after)
            #expect(analytics?["properties"]?["skipped"] == false)
            #expect(analytics?["properties"]?["step_id"] == "only")
        }
    }

    /// One event completes one step: the tap that completes step 1 does not also complete a
    /// step 2 that waits for the same tap.
    @Test func oneEventOneStep() throws {
        let steps = [Self.step("first", "{tap: next}"), Self.step("second", "{tap: next}")]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: steps)]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        engine.send("u1", "ui_tap", ["element_id": "next"], at: Self.t0 + 1)
        var progress = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "tour@1"))
        #expect(Set(progress.steps.keys) == ["first"])
        #expect(progress.shownAt["second"] == Self.t0 + 1)
        engine.send("u1", "ui_tap", ["element_id": "next"], at: Self.t0 + 4)
        progress = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "tour@1"))
        #expect(Set(progress.steps.keys) == ["first", "second"])
        #expect(progress.steps["second"]?.completedAt == Self.t0 + 4)
    }

    /// A flow chained after another starts as that one ends: its first step is shown then
    /// (here when the first flow's last timer runs out), before the user's next tap, which
    /// completes it with the time it took.
    @Test func aChainedFlowShowsItsFirstStepAsThePreviousEnds() throws {
        let first = Self.flow("intro", steps: [Self.step("hello", "{tap: go}"), Self.step("main", "{timer: 4}")])
        let second = """
            flow: next
            version: "1.0"
            after: intro
            steps:
            \(Self.step("plus", "{tap: plus}"))
            """
        guard let engine = Self.engine(["intro.yaml": first, "next.yaml": second]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        engine.send("u1", "ui_tap", ["element_id": "go"], at: Self.t0 + 2)
        let flows = OnboardingFlows(ruleSet: engine.evaluator.ruleSet)
        let before = try OnboardingView.json(
            user: "u1", flows: flows, store: engine.database.store, now: Self.t0 + 5, texts: flows.defaultTexts)
        #expect(before["current"]?["step"]?["id"] == "main")
        let view = try OnboardingView.json(
            user: "u1", flows: flows, store: engine.database.store, now: Self.t0 + 7, texts: flows.defaultTexts)
        #expect(view["current"]?["step"]?["id"] == "plus", "\(view)")
        #expect(view["current"]?["shown_at"] == .string(Timestamp.format(Self.t0 + 6)))
        engine.send("u1", "ui_tap", ["element_id": "plus"], at: Self.t0 + 9)
        let progress = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "next@1"))
        #expect(progress.startedAt == Self.t0 + 6)
        #expect(progress.steps["plus"]?.completedAt == Self.t0 + 9)
    }

    /// Two timers in a row both run out before the next event: both are done, each when its
    /// own time ran out, and the step after them is shown from then.
    @Test func timersCatchUp() throws {
        let steps = [Self.step("a", "{timer: 3}"), Self.step("b", "{timer: 4}"), Self.step("c", "{tap: x}")]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: steps)]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        let flows = OnboardingFlows(ruleSet: engine.evaluator.ruleSet)
        let view = try OnboardingView.json(
            user: "u1", flows: flows, store: engine.database.store, now: Self.t0 + 8, texts: flows.defaultTexts)
        #expect(view["current"]?["step"]?["id"] == "c", "the view counts run-out timers as done")
        #expect(view["current"]?["shown_at"] == .string(Timestamp.format(Self.t0 + 7)))
        engine.send("u1", "ui_tap", ["element_id": "x"], at: Self.t0 + 20)
        let progress = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "tour@1"))
        #expect(progress.steps["a"]?.completedAt == Self.t0 + 3)
        #expect(progress.steps["b"]?.completedAt == Self.t0 + 7)
        #expect(progress.shownAt["c"] == Self.t0 + 7)
        #expect(progress.steps["c"]?.completedAt == Self.t0 + 20)
    }

    // MARK: Skips

    struct SkipCase: Sendable, CustomTestStringConvertible {
        var name: String
        var payload: JSONObject
        var code: String?
        var message: String = ""
        var testDescription: String { name }
    }

    static let skipCases: [SkipCase] = [
        SkipCase(name: "skippable current step", payload: ["flow": "tour", "step_id": "intro"], code: nil),
        SkipCase(
            name: "a later step", payload: ["flow": "tour", "step_id": "must"], code: "not_current",
            message: "step `must` of flow `tour` is not the current step; the current step is `intro`"),
        SkipCase(
            name: "an unknown flow", payload: ["flow": "nope", "step_id": "intro"], code: "not_in_progress",
            message: "onboarding flow `nope` is not in progress"),
        SkipCase(
            name: "no step id", payload: ["flow": "tour"], code: "invalid", message: "`payload.step_id` must name"),
        SkipCase(
            name: "no flow", payload: ["step_id": "intro"], code: "invalid", message: "`payload.flow` must name"),
    ]

    @Test(arguments: skipCases)
    func skip(_ testCase: SkipCase) throws {
        let steps = [Self.step("intro", "{tap: x}", canSkip: true), Self.step("must", "{tap: y}", canSkip: false)]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: steps)]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        let result = engine.send("u1", "onboarding_step_skipped", testCase.payload, at: Self.t0 + 2)
        #expect(result.code == testCase.code, "\(result.json)")
        #expect(result.message?.contains(testCase.message) ?? testCase.message.isEmpty, "\(result.message ?? "")")
        let progress = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "tour@1"))
        if testCase.code == nil {
            #expect(progress.steps["intro"] == OnboardingStepProgress(completedAt: Self.t0 + 2, skipped: true))
            #expect(progress.shownAt["must"] == Self.t0 + 2)
            let analytics = result.effects.first { $0["name"] == "onboarding_step_completed" }
            #expect(analytics?["properties"]?["skipped"] == true)
        } else {
            #expect(progress.steps.isEmpty, "a refused skip records nothing")
        }
    }

    @Test func aStepThatCannotBeSkippedIsRefused() throws {
        let steps = [Self.step("must", "{tap: y}", canSkip: false)]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: steps)]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        let result = engine.send("u1", "onboarding_step_skipped", ["flow": "tour", "step_id": "must"], at: Self.t0 + 1)
        #expect(result.status == .rejected)
        #expect(result.code == "not_skippable")
        #expect(
            result.message == "step `must` of flow `tour` cannot be skipped (can_skip: false); the user has to do it")
        #expect(try engine.database.count("SELECT count(*) FROM onboarding_progress") == 0)
        #expect(try engine.database.count("SELECT count(*) FROM events WHERE type = 'onboarding_step_skipped'") == 0)
    }

    // MARK: Versions

    @Test func aMinorVersionShowsAReturningUserOnlyTheNewSteps() throws {
        let v1 = [Self.step("a", "{tap: a}"), Self.step("b", "{tap: b}")]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: v1)]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        engine.send("u1", "ui_tap", ["element_id": "a"], at: Self.t0 + 1)
        engine.send("u1", "ui_tap", ["element_id": "b"], at: Self.t0 + 2)
        // The product manager adds a step in the middle and one at the end, as version 1.1.
        let v11 = [
            Self.step("a", "{tap: a}"), Self.step("new_middle", "{tap: m}"), Self.step("b", "{tap: b}"),
            Self.step("new_end", "{tap: e}"),
        ]
        guard let evaluator = RulesFolder(["tour.yaml": Self.flow(version: "1.1", steps: v11)]).evaluator() else {
            return
        }
        let flows = OnboardingFlows(ruleSet: evaluator.ruleSet)
        let view = try OnboardingView.json(
            user: "u1", flows: flows, store: engine.database.store, now: Self.t0 + 60, texts: flows.defaultTexts)
        #expect(view["current"]?["step"]?["id"] == "new_middle")
        let upgraded = Engine(evaluator: evaluator, database: engine.database)
        upgraded.send("u1", "ui_tap", ["element_id": "a"], at: Self.t0 + 100)  // not asked again: nothing happens
        upgraded.send("u1", "ui_tap", ["element_id": "m"], at: Self.t0 + 101)
        upgraded.send("u1", "ui_tap", ["element_id": "e"], at: Self.t0 + 102)
        let progress = try #require(try upgraded.database.store.onboardingProgress(user: "u1", flow: "tour@1"))
        #expect(Set(progress.steps.keys) == ["a", "b", "new_middle", "new_end"])
        #expect(progress.steps["a"]?.completedAt == Self.t0 + 1, "done steps keep their history")
        #expect(progress.version == "1.1")
    }

    @Test func aMajorVersionStartsOver() throws {
        let steps = [Self.step("a", "{tap: a}")]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: steps)]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        engine.send("u1", "ui_tap", ["element_id": "a"], at: Self.t0 + 1)
        guard let evaluator = RulesFolder(["tour.yaml": Self.flow(version: "2.0", steps: steps)]).evaluator() else {
            return
        }
        let flows = OnboardingFlows(ruleSet: evaluator.ruleSet)
        var view = try OnboardingView.json(
            user: "u1", flows: flows, store: engine.database.store, now: Self.t0 + 60, texts: flows.defaultTexts)
        #expect(view["flows"]?[0]?["status"] == "not_started")
        #expect(view["flows"]?[0]?["key"] == "tour@2")
        let upgraded = Engine(evaluator: evaluator, database: engine.database)
        upgraded.send("u1", "app_opened", at: Self.t0 + 100)
        view = try OnboardingView.json(
            user: "u1", flows: flows, store: upgraded.database.store, now: Self.t0 + 101, texts: flows.defaultTexts)
        #expect(view["current"]?["step"]?["id"] == "a")
        #expect(view["current"]?["version"] == "2.0")
        #expect(try upgraded.database.store.onboardingProgress(user: "u1", flow: "tour@1")?.steps["a"] != nil)
    }

    // MARK: Flows after flows, variants by experiment

    @Test func aFlowStartsWhenTheOneBeforeItIsFinished() throws {
        let first = Self.flow("intro", steps: [Self.step("hello", "{tap: go}")])
        let second = """
            flow: tracker
            version: "1.0"
            after: intro
            steps:
            \(Self.step("plus", "{tap: plus}"))
            """
        guard let engine = Self.engine(["intro.yaml": first, "tracker.yaml": second]) else { return }
        engine.send("u1", "app_opened", at: Self.t0)
        #expect(try engine.database.store.onboardingProgress(user: "u1", flow: "tracker@1") == nil)
        engine.send("u1", "ui_tap", ["element_id": "plus"], at: Self.t0 + 1)  // not yet: intro is not done
        #expect(try engine.database.store.onboardingProgress(user: "u1", flow: "tracker@1") == nil)
        engine.send("u1", "ui_tap", ["element_id": "go"], at: Self.t0 + 2)
        let tracker = try #require(try engine.database.store.onboardingProgress(user: "u1", flow: "tracker@1"))
        #expect(tracker.shownAt["plus"] == Self.t0 + 2)
        #expect(tracker.steps.isEmpty)
    }

    @Test func theVariantIsTheUsersAssignment() throws {
        let experiments = """
            experiments:
              - key: tour-test
                variations: [long, short]
            """
        let flow = """
            flow: tour
            version: "1.0"
            starts_on: [app_opened]
            experiment: tour-test
            variants:
              long:
            \(Self.step("one", "{tap: a}"))
            \(Self.step("two", "{tap: b}"))
              short:
            \(Self.step("one", "{tap: a}"))
            """
        guard let engine = Self.engine(["experiments.yaml": experiments, "tour.yaml": flow]) else { return }
        var variants: [String: Int] = [:]
        for n in 0..<60 {
            let user = "user-\(n)"
            engine.send(user, "app_opened", at: Self.t0)
            let progress = try #require(try engine.database.store.onboardingProgress(user: user, flow: "tour@1"))
            let expected = GrowthBook.hash(seed: "tour-test", value: user, version: 2)! < 0.5 ? "long" : "short"
            #expect(progress.variant == expected)
            variants[progress.variant, default: 0] += 1
        }
        #expect(variants.count == 2)
        #expect(try engine.database.count("SELECT count(*) FROM experiment_assignments") == 60)
        #expect(
            try engine.database.count("SELECT count(*) FROM analytics_outbox WHERE name = 'experiment_viewed'") == 60)
    }

    // MARK: Funnel

    /// 400 generated users go through a four-step flow; each step they may leave, skip (when
    /// allowed) or do after some seconds. The funnel from the store equals what the
    /// generator counted.
    @Test func funnelOfAGeneratedPopulation() throws {
        let steps = [
            Self.step("s1", "{tap: s1}", canSkip: true), Self.step("s2", "{swipe: left}"),
            Self.step("s3", "{tap: s3}", canSkip: true), Self.step("s4", "{timer: 6}"),
        ]
        guard let engine = Self.engine(["tour.yaml": Self.flow(steps: steps)]) else { return }
        var generator = SplitMix64(seed: 42)
        var reached = [0, 0, 0, 0]
        var completed = [0, 0, 0, 0]
        var skipped = [0, 0, 0, 0]
        var durations: [[Double]] = [[], [], [], []]
        for n in 0..<400 {
            let user = "user-\(n)"
            var time = Self.t0 + Double(n)
            engine.send(user, "app_opened", at: time)
            for index in 0..<4 {
                reached[index] += 1
                let roll = generator.next() % 100
                if roll < 12 { break }  // leaves the app
                let seconds = Double(1 + generator.next() % 30)
                if index == 3 {  // the timer: done when it runs out, seen at the next event
                    time += max(seconds, 6)
                    engine.send(user, "app_heartbeat", at: time)
                    completed[index] += 1
                    durations[index].append(6)
                    continue
                }
                time += seconds
                if roll < 25, index == 0 || index == 2 {
                    engine.send(
                        user, "onboarding_step_skipped", ["flow": "tour", "step_id": .string("s\(index + 1)")], at: time
                    )
                    skipped[index] += 1
                } else {
                    let (type, payload): (String, JSONObject) =
                        index == 1
                        ? ("ui_swipe", ["direction": "left"]) : ("ui_tap", ["element_id": .string("s\(index + 1)")])
                    engine.send(user, type, payload, at: time)
                    completed[index] += 1
                    durations[index].append(seconds)
                }
            }
        }
        let flow = try #require(OnboardingFlows(ruleSet: engine.evaluator.ruleSet)["tour"])
        let funnel = try OnboardingFunnel(flow: flow, store: engine.database.store)
        let variant = try #require(funnel.variants.first)
        #expect(variant.started == 400)
        for index in 0..<4 {
            let step = variant.steps[index]
            #expect(step.reached == reached[index], "s\(index + 1) reached")
            #expect(step.completed == completed[index], "s\(index + 1) completed")
            #expect(step.skipped == skipped[index], "s\(index + 1) skipped")
            #expect(step.medianDurationSeconds == OnboardingFunnel.median(durations[index]), "s\(index + 1) median")
        }
        #expect(variant.finished == completed[3])
        #expect(reached[0] == 400 && reached[3] < reached[0], "the population drops out along the way")
    }
}
