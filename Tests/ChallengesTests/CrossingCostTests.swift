import Challenges
import Core
import Foundation
import Testing

/// What a late walk of a completed community challenge costs must not grow with the walks
/// counted after the goal: the crossing (where everyone's contributions, in time order, first
/// reach it) is looked for only up to the completion kept. Counted in SQLite's virtual machine
/// operations, not time.
@Suite struct CrossingCostTests {
    @Test func aLateWalkAfterTheGoalReadsOnlyTheWalksBeforeIt() throws {
        let harness = try ChallengeHarness(["pack.yaml": Definitions.pack])
        harness.send("a", "challenge_joined", ["challenge_id": "pack"], at: "2026-08-02T08:00:00Z")
        // Ten walks of 100 km reach the 1,000 km goal at the tenth.
        for minute in 0..<10 {
            harness.send("a", "walk_completed", ["km": 100], at: "2026-08-10T10:0\(minute):00Z")
        }
        let completedAt = try harness.store.challengeTotals(challenge: "pack").first { $0.team.isEmpty }?.completedAt
        #expect(completedAt == Timestamp.parse("2026-08-10T10:09:00Z"))

        var lateWalks = 0
        /// VM operations of one walk before the goal was reached (it arrives late).
        func lateWalk() -> Int {
            lateWalks += 1
            let before = harness.store.connection.virtualMachineSteps
            let result = harness.send("a", "walk_completed", ["km": 1], at: "2026-08-10T09:\(10 + lateWalks):00Z")
            #expect(result.status == .accepted)
            return harness.store.connection.virtualMachineSteps - before
        }
        /// Walks after the goal, which the crossing never needs.
        func walksAfterTheGoal(_ count: Int, day: Int) {
            for n in 0..<count {
                harness.send(
                    "a", "walk_completed", ["km": 1],
                    at: "2026-08-\(day)T\(10 + n / 60):\(String(format: "%02d", n % 60)):00Z")
            }
        }
        walksAfterTheGoal(50, day: 20)
        _ = lateWalk()  // the statements it runs are prepared now
        let withFewAfter = lateWalk()
        walksAfterTheGoal(600, day: 21)
        let withManyAfter = lateWalk()
        // Before the fix: 5,555 operations with 52 walks after the goal, 55,430 with 652.
        #expect(withManyAfter < withFewAfter + withFewAfter / 10, "\(withFewAfter) → \(withManyAfter)")
        // The late walks add 3 km before the goal: the tenth 100 km walk still reaches it.
        let moved = try harness.store.challengeTotals(challenge: "pack").first { $0.team.isEmpty }?.completedAt
        #expect(moved == completedAt)
    }
}
