import Core
import FeatureKit
import Features
import Server
import Testing

/// `/openapi.json` is the engine's part and every feature's, put together: each route the
/// service answers is documented once, nothing documented is missing from the router, and two
/// parts defining the same path, schema or tag are refused naming the feature.
@Suite struct OpenAPIDocumentTests {
    static let shared = SharedService()

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() throws {
        let document = try Self.shared.use { harness in
            let response = harness.send("GET", "/openapi.json")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            return response.json
        }
        let methods = ["get", "post", "put", "patch", "delete"]
        var documented: Set<String> = []
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            for method in methods where item[method] != nil { documented.insert("\(method.uppercased()) \(path)") }
        }
        let routes = Set(JourneyService.routeNames(features: Features.all))
        #expect(routes.subtracting(documented).sorted() == [], "routes without documentation")
        #expect(documented.subtracting(routes).sorted() == [], "documented operations no route answers")
        // Every feature with routes brought its part (its schemas are there).
        for name in ["TodayView", "OnboardingView", "HabitStats", "ChallengeRanking", "Error"] {
            #expect(document["components"]?["schemas"]?[name] != nil, "schema \(name)")
        }
    }

    struct Part: Feature {
        var name: String
        var part: JSON
        func openAPI() throws(OpenAPIDocument.Failure) -> JSON? { part }
    }

    static let clashes: [(JSON, String)] = [
        (["paths": ["/v1/events": [:]]], "feature b: path /v1/events is defined twice"),
        (["components": ["schemas": ["Error": [:]]]], "feature b: schema Error is defined twice"),
        (["tags": [["name": "events"]]], "feature b: tag \"events\" is defined twice"),
    ]

    @Test(arguments: clashes)
    func aSecondDefinitionIsRefusedNamingTheFeature(part: JSON, message: String) throws {
        let core: JSON = [
            "paths": ["/v1/events": [:]], "tags": [["name": "events"]], "components": ["schemas": ["Error": [:]]],
        ]
        let clean = Part(name: "a", part: ["paths": ["/v1/a": [:]], "components": ["schemas": ["A": [:]]]])
        let merged = try OpenAPIDocument.merge(core: core, features: [clean])
        #expect(merged["paths"]?["/v1/a"] != nil && merged["components"]?["schemas"]?["A"] != nil)
        #expect(throws: OpenAPIDocument.Failure.self) {
            try OpenAPIDocument.merge(core: core, features: [clean, Part(name: "b", part: part)])
        }
        do {
            _ = try OpenAPIDocument.merge(core: core, features: [Part(name: "b", part: part)])
        } catch {
            #expect(error.description == message)
        }
    }
}
