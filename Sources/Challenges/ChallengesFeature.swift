import Core
import Engine
import FeatureKit
import Foundation
import RuleEngine
import Store

/// Challenges: solo, community, head-to-head and recurring, progress through the ingest path
/// (after every other feature, so that a challenge can count what they accepted), and the
/// community challenges' daily digest.
public struct ChallengesFeature: Feature {
    /// The UTC hour from which a day's digest goes out.
    public var digestHour: Int

    public init(digestHour: Int = 9) {
        self.digestHour = digestHour
    }

    public var name: String { "challenges" }

    public var appEvents: [AppEvent] {
        [
            AppEvent(
                ChallengesConsumer.joinEventType, says: "joins a challenge",
                "The user joined a challenge; `challenge_id` names it.")
        ]
    }
    public var migrations: [Migration] { ChallengeSchema.migrations }
    public var ruleKinds: [RuleKind] { [.challengeMetric, .challengeCompletion] }
    public var documentKinds: [any DocumentKind] { [ChallengeDocumentKind()] }

    public func consumers(for ruleSet: RuleSet) -> [any EventConsumer] {
        [ChallengesConsumer(catalog: ChallengeCatalog(ruleSet: ruleSet), ruleSet: ruleSet)]
    }

    public var rejectionStatuses: [String: Int] {
        ["unknown_challenge": 404, "challenge_full": 409, "challenge_ended": 409, "challenge_inactive": 409]
    }

    /// Its routes' part of the OpenAPI document, bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    public var routes: [FeatureRoute] {
        [
            FeatureRoute("GET", "/v1/challenges", access: .user([.queryUser("user_id")]), ChallengeRoutes.list),
            FeatureRoute(
                "GET", "/v1/challenges/{challenge_id}", access: .user([.queryUser("user_id")]), ChallengeRoutes.show),
            FeatureRoute(
                "GET", "/v1/challenges/{challenge_id}/share", access: .user([.queryUser("user_id")]),
                ChallengeRoutes.share),
            FeatureRoute(
                "GET", "/v1/users/{user_id}/rewards", access: .user([.pathUser("user_id")]), ChallengeRoutes.rewards),
            FeatureRoute(
                "GET", "/v1/challenges/{challenge_id}/feed", access: .user([.queryUser("user_id")]),
                ChallengeRoutes.feed),
            FeatureRoute(
                "GET", "/v1/challenges/{challenge_id}/ranking", access: .user([.queryUser("user_id")]),
                ChallengeRoutes.ranking),
            FeatureRoute(
                "POST", "/v1/challenges/{challenge_id}/join", access: .user([.bodyUser("user_id")]),
                ChallengeRoutes.join),
        ]
    }

    public var texts: [TextUse] { ChallengeTexts.uses }

    public var commands: [any Command.Type] {
        [ChallengesCommand.self, ChallengeShowCommand.self, ChallengeDigestCommand.self]
    }
    public var commandGroups: [String: String] {
        ["challenge": "Show a challenge, or send the community challenges' daily digest."]
    }

    /// Crediting a reached community goal, and the daily digest, checked every minute (the
    /// digest goes out once per challenge and UTC day).
    public var jobs: [FeatureJob] {
        let hour = digestHour
        return [
            FeatureJob(name: "challenge crediting", every: .seconds(60)) { store, ruleSet, now in
                let credited = try ChallengeCrediting.run(
                    catalog: ChallengeCatalog(ruleSet: ruleSet), store: store, now: now)
                return credited == 0 ? nil : "\(credited) participants credited for a community goal reached"
            },
            FeatureJob(name: "challenge digest", every: .seconds(60)) { store, ruleSet, now in
                let report = try ChallengeDigest.run(
                    catalog: ChallengeCatalog(ruleSet: ruleSet), store: store, now: now, notBefore: hour)
                guard !report.challenges.isEmpty else { return nil }
                return
                    "\(report.challenges.joined(separator: ", ")): \(report.notifications) notifications, \(report.completions) completions"
            },
        ]
    }
}
