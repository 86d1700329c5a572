import Core
import Experiments
import Features
import Store
import TestSupport
import Testing

/// A concluded experiment (`winner:`) gives everyone the winner, kept assignments or not, and
/// assigns and exposes nobody any more; a winner that is not a variation is refused.
struct ConcludedExperimentTests {
    @Test func everyoneGetsTheWinnerAndNobodyIsExposed() throws {
        let database = TestDatabase(schema: Features.all.schema)
        let running = ExperimentAssigner(
            catalog: AssignmentTests.catalog(AssignmentTests.experiments()), store: database.store)
        var before: [String?] = []
        for n in 0..<200 {
            before.append(
                try running.use("greeting-test", subject: AssignmentTests.user(n), now: AssignmentTests.now).variation)
        }
        #expect(before.contains("control") && before.contains("warm"))
        let concluded = ExperimentAssigner(
            catalog: AssignmentTests.catalog(AssignmentTests.experiments(extra: "    winner: warm\n    active: false")),
            store: database.store)
        #expect(concluded.catalog["greeting-test"]?.winner == "warm")
        for n in 0..<400 {
            let assignment = try concluded.use(
                "greeting-test", subject: AssignmentTests.user(n), now: AssignmentTests.now + 60)
            #expect(assignment.variation == "warm" && assignment.reason == .concluded)
        }
        // Users 200..<400 were never assigned: nothing was kept for them.
        let kept = try database.store.assignment(subject: "user_id:user-300", experiment: "greeting-test")
        #expect(kept == nil)
    }

    @Test func aWinnerThatIsNotAVariationIsRefused() {
        let folder = RulesFolder([
            "experiments.yaml": AssignmentTests.experiments(extra: "    winner: cold"),
            "greeting.yaml": AssignmentTests.rule,
        ])
        let diagnostics = folder.load().diagnostics
        #expect(
            diagnostics.contains {
                $0.code == "invalid_value" && $0.message.contains("winner of `greeting-test` must be one of")
            }, "\(diagnostics)")
    }
}
