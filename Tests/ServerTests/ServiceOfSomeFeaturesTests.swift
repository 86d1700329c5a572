import Challenges
import Core
import FeatureKit
import Habits
import Testing

/// The service serves the features it is handed, and only those: the `journey` executable
/// hands it every one, a test (or another app) fewer.
@Suite struct ServiceOfSomeFeaturesTests {
    static let features = FeatureSet([HabitsFeature(), ChallengesFeature()])

    @Test func itAnswersTheRoutesOfItsFeaturesAndNoOthers() throws {
        let harness = try ServiceHarness(
            seed: false, features: Self.features, ruleFolders: ["habits", "challenges"])
        let trackers = harness.send("GET", "/v1/users/u1/habits/trackers")
        #expect(trackers.status == 200, "\(trackers.text.prefix(300))")
        let challenges = harness.send("GET", "/v1/challenges?user_id=u1")
        #expect(challenges.status == 200, "\(challenges.text.prefix(300))")
        let today = harness.send("GET", "/v1/dogs/q-123/today")
        #expect(today.status == 404, "the Dog Journey is not served: \(today.text.prefix(300))")
    }

    @Test func itsOpenAPIDocumentHasItsFeaturesOnly() throws {
        let harness = try ServiceHarness(
            seed: false, features: Self.features, ruleFolders: ["habits", "challenges"])
        let document = harness.send("GET", "/openapi.json").json
        let paths = Set((document["paths"]?.objectValue ?? [:]).keys)
        #expect(paths.contains("/v1/users/{user_id}/habits/trackers"))
        #expect(paths.contains("/v1/challenges"))
        #expect(!paths.contains { $0.hasPrefix("/v1/dogs/") }, "\(paths.sorted())")
        #expect(document["components"]?["schemas"]?["TodayView"] == nil)
    }
}
