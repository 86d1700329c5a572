import Core
import Engine
import Store
import TestSupport
import Testing

@testable import Challenges

/// A completion is never dated before the join (what was walked before the join counts from
/// the challenge's start, but the participant completes at the join), and a community goal
/// reached already is not completed again by a late event that does not make it sooner.
@Suite struct CompletionTimeTests {
    struct Step: Sendable {
        var user: String
        var type: String
        var payload: JSONObject
        var at: String
    }

    struct CompletionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        /// Each user's `completed_at` afterwards (nil: not completed).
        var completed: [String: String?]
        /// Whether the last event's effects say the group completed.
        var groupCompletedByLast = false
        var testDescription: String { name }
    }

    static func walk(_ user: String, _ km: Double, at: String) -> Step {
        Step(user: user, type: "walk_completed", payload: ["km": .number(km)], at: at)
    }

    static func join(_ user: String, _ challenge: String, at: String) -> Step {
        Step(user: user, type: "challenge_joined", payload: ["challenge_id": .string(challenge)], at: at)
    }

    static let cases: [CompletionCase] = [
        CompletionCase(
            name: "solo: walks before the join complete it at the join",
            steps: [
                walk("anna", 6, at: "2026-08-03T11:30:00Z"), walk("anna", 5, at: "2026-08-03T11:50:00Z"),
                join("anna", "sprint", at: "2026-08-03T11:58:49Z"),
            ],
            completed: ["anna": "2026-08-03T11:58:49Z"]),
        CompletionCase(
            name: "solo: a walk after the join completes it then",
            steps: [
                walk("anna", 6, at: "2026-08-03T11:30:00Z"), join("anna", "sprint", at: "2026-08-03T11:58:49Z"),
                walk("anna", 5, at: "2026-08-03T12:30:00Z"),
            ],
            completed: ["anna": "2026-08-03T12:30:00Z"]),
        CompletionCase(
            name: "solo: a late walk dated before the join still completes at the join",
            steps: [
                join("anna", "sprint", at: "2026-08-03T11:58:49Z"), walk("anna", 6, at: "2026-08-03T12:30:00Z"),
                walk("anna", 5, at: "2026-08-03T11:00:00Z"),
            ],
            completed: ["anna": "2026-08-03T12:30:00Z"]),
        CompletionCase(
            name: "community: a late walk dated before the goal, not making it sooner, completes nothing",
            steps: [
                join("anna", "pack", at: "2026-08-01T08:00:00Z"), join("boris", "pack", at: "2026-08-01T08:00:00Z"),
                walk("anna", 600, at: "2026-08-10T08:00:00Z"), walk("boris", 400, at: "2026-08-11T09:00:00Z"),
                walk("anna", 5, at: "2026-08-09T10:00:00+01:00"),
            ],
            completed: [:], groupCompletedByLast: false),
        CompletionCase(
            name: "community: a late walk that makes the goal sooner completes it sooner",
            steps: [
                join("anna", "pack", at: "2026-08-01T08:00:00Z"), join("boris", "pack", at: "2026-08-01T08:00:00Z"),
                walk("anna", 600, at: "2026-08-10T08:00:00Z"), walk("boris", 400, at: "2026-08-11T09:00:00Z"),
                walk("boris", 400, at: "2026-08-10T09:00:00Z"),
            ],
            completed: [:], groupCompletedByLast: true),
    ]

    @Test(arguments: cases)
    func neverBeforeTheJoin(_ testCase: CompletionCase) throws {
        let harness = try ChallengeHarness(Definitions.all)
        var last: IngestResult?
        var now = -Double.infinity
        for step in testCase.steps {
            // Received as it happened, or late (after everything before it).
            now = max(now, Timestamp.parse(step.at)! + 1)
            let result = harness.send(step.user, step.type, step.payload, at: step.at, received: Timestamp.format(now))
            #expect(result.status == .accepted, "\(step.type) at \(step.at): \(result.json.compactText)")
            last = result
        }
        for (user, expected) in testCase.completed {
            let challenge =
                testCase.steps.first { $0.user == user && $0.type == "challenge_joined" }?
                .payload["challenge_id"]?.stringValue ?? ""
            let participation = try harness.store.challengeParticipation(challenge: challenge, user: user)
            #expect(participation?.completedAt.map(Timestamp.format) == expected, "\(user)")
            if let done = participation?.completedAt, let joined = participation?.joinedAt {
                #expect(done >= joined, "\(user) completed before joining")
            }
        }
        let groupCompleted = last?.effects.contains { $0["type"] == "challenge_group_completed" } ?? false
        #expect(groupCompleted == testCase.groupCompletedByLast, "\(last?.json.compactText ?? "")")
    }
}
