import Core
import Engine
import Onboarding
import Store
import Testing

/// Onboarding durations are seconds to the millisecond wherever they are served: the step's
/// analytics, its effect, and the funnel's median (times are doubles: their differences carry
/// float noise such as 13.217332124710083).
struct OnboardingDurationTests {
    struct DurationCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// Seconds after each user's step was shown that the user tapped it.
        var after: [Double]
        /// The duration of the first user's step, as served.
        var duration: String
        /// The funnel's median, as served.
        var median: String
        var testDescription: String { name }
    }

    static let cases: [DurationCase] = [
        DurationCase(name: "the audit's tap", after: [13.217], duration: "13.217", median: "13.217"),
        DurationCase(name: "a skip's noise", after: [2.311], duration: "2.311", median: "2.311"),
        DurationCase(
            name: "the mean of two middle values", after: [1.1, 2.2], duration: "1.1", median: "1.65"),
        DurationCase(
            name: "three users, noisy", after: [7.001, 3.333, 12.999], duration: "7.001",
            median: "7.001"),
    ]

    @Test(arguments: cases)
    func servedToTheMillisecond(_ testCase: DurationCase) throws {
        let steps = [OnboardingTests.step("only", "{tap: only}")]
        guard let engine = OnboardingTests.engine(["tour.yaml": OnboardingTests.flow(steps: steps)]) else { return }
        // Shown at times with a fraction (events carry milliseconds), tapped in time order.
        let shown = testCase.after.indices.map { OnboardingTests.t0 + 0.123 + Double($0) * 0.017 }
        for (index, time) in shown.enumerated() { engine.send("u\(index)", "app_opened", at: time) }
        var first: IngestResult?
        for index in testCase.after.indices.sorted(by: {
            shown[$0] + testCase.after[$0] < shown[$1] + testCase.after[$1]
        }) {
            let result = engine.send(
                "u\(index)", "ui_tap", ["element_id": "only"], at: shown[index] + testCase.after[index])
            if index == 0 { first = result }
        }
        let result = try #require(first)
        let analytics = result.effects.first { $0["name"] == "onboarding_step_completed" }
        #expect(analytics?["properties"]?["duration_seconds"]?.compactText == testCase.duration)
        let effect = result.effects.first { $0["type"] == "onboarding_step_completed" }
        #expect(effect?["duration_seconds"]?.compactText == testCase.duration)
        let flow = try #require(OnboardingFlows(ruleSet: engine.evaluator.ruleSet)["tour"])
        let funnel = try OnboardingFunnel(flow: flow, store: engine.database.store)
        let median = try #require(funnel.variants.first?.steps.first?.medianDurationSeconds)
        #expect(JSON.number(median).compactText == testCase.median)
    }
}
