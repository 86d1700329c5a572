import Core
import Foundation
import JQ
import Journey
import RuleEngine
import TestSupport
import Testing

/// A recommendation that names a block the dog's journey lacks is never a silent null: the
/// fallback answers (or, without one, nothing is recommended), the failure is told to the
/// evaluator's observer (what the service counts) and the view logs a line saying what happened.
@Suite struct UnknownBlockTests {
    static let fallback = """
        fallback: |
          include "journey";
          (.branches | branch_ranks) as $ranks | available_blocks | nearest(0; $ranks) | .id?
        """

    /// The bundled rules with a recommendation computing `expr` (which no literal check sees).
    static func journey(_ expr: String, fallback: String? = nil) throws -> (JourneyHarness, TemporaryDirectory) {
        let folder = try TemporaryDirectory(copying: Repository.rules)
        try folder.write(
            "journey/recommendation.yaml",
            "rule: recommendation\nkind: recommendation\nexpr: '\(expr)'\n" + (fallback ?? "") + "\n")
        let journey = try JourneyHarness(rules: folder.path, now: "2026-11-20T08:00:00Z")
        journey.send("dog_registered", JourneyBehaviourTests.registration)
        return (journey, folder)
    }

    @Test func theFallbackAnswersAndTheFailureIsCountedAndLogged() throws {
        let (journey, folder) = try Self.journey(#".blocks[0].id + "s""#, fallback: Self.fallback)
        defer { withExtendedLifetime(folder) {} }
        // Registration stored the fallback's answer (weight-baseline) as the recommendation;
        // Today evaluates the rule once that block is completed (DJ-08).
        #expect(try journey.store.manifest(dog: "miso")?.manifest["recommended_block_id"] == "weight-baseline")
        try BlockResultTests.prepare(journey, "weight-baseline")
        journey.send("weight_saved", ["kg": 7.4])
        let observer = EvaluationLog()
        journey.evaluator.observer = observer
        let lines = LockedText()
        let views = JourneyViews(
            store: journey.store, evaluator: journey.evaluator, now: journey.clock, log: { lines.append($0 + "\n") })

        let today = try views.today("miso")
        #expect(today["recommended"]?["block_id"] == "vaccination-record")
        #expect(
            observer.entries.filter { $0.hasPrefix("recommendation ") } == [
                "recommendation default unknown_reference", "recommendation fallback -",
            ],
            "the service counts the failure and the fallback through its observer")
        #expect(
            lines.text
                == "dog miso: rule `recommendation` returned block id `weight-baselines`, which is not a block of Miso's journey; did you mean `weight-baseline`? [unknown_reference]; answered with its fallback (`vaccination-record`)\n"
        )
    }

    @Test func withoutAFallbackNothingIsRecommendedAndItIsLogged() throws {
        let (journey, folder) = try Self.journey(#""nowhere-" + .blocks[0].id"#)
        defer { withExtendedLifetime(folder) {} }
        let lines = LockedText()
        let views = JourneyViews(
            store: journey.store, evaluator: journey.evaluator, now: journey.clock, log: { lines.append($0 + "\n") })

        let today = try views.today("miso")
        #expect(today["recommended"] == .null)
        #expect(lines.text.hasPrefix("dog miso: rule `recommendation` returned block id `nowhere-weight-baseline`"))
        #expect(lines.text.hasSuffix("[unknown_reference]; nothing is recommended (no fallback answered)\n"))
        // Registration, which recommends the first block, did not fail either.
        #expect(try journey.store.manifest(dog: "miso")?.manifest["recommended_first"] == .null)
    }
}

/// Each evaluation as `rule variant error-code`.
final class EvaluationLog: EvaluationObserver {
    var entries: [String] = []
    func willEvaluate(_ rule: RuleDefinition, variant: String) {}
    func didEvaluate(_ rule: RuleDefinition, variant: String, input: JV, duration: Duration, error: RuleError?) {
        entries.append("\(rule.id) \(variant) \(error?.code.rawValue ?? "-")")
    }
}
