import CheckPlugins
import CommandKit
import Core
import Engine
import FeatureKit
import Foundation
import RuleEngine
import Store

/// The Dog Journey: catalogs and wording, journey maps at registration, the block flow, the
/// dog's screens (`/v1/dogs/…`, `journey dog …`).
public struct JourneyFeature: Feature {
    /// Check plugins written in Swift, beside the YAML ones in `Plugins/`.
    public var swiftPlugins: [any CheckPlugin]

    public init(swiftPlugins: [any CheckPlugin] = []) {
        self.swiftPlugins = swiftPlugins
    }

    public var name: String { "journey" }

    public var appEvents: [AppEvent] {
        [
            AppEvent(
                "dog_registered", says: "registers a dog", "The owner registered a dog: its name, age and metrics."),
            AppEvent("journey_opened", says: "opens the Dog Journey", "The owner opened the Dog Journey screen."),
            AppEvent("block_started", says: "starts a block", "The owner started a block of the Dog Journey."),
            AppEvent("theory_viewed", says: "reads a theory card", "The owner read a card of a block's theory."),
            AppEvent("check_answered", says: "answers a check", "The owner answered a block's check."),
            AppEvent(
                JourneyAnalytics.interpretationRead, says: "reads an interpretation",
                "The owner read the AI interpretation of a check's answers."),
        ]
    }
    public var migrations: [Migration] { JourneySchema.migrations }
    public var ruleKinds: [RuleKind] { [.recommendation, .autoComplete, .personalNote, .manifest] }
    public var documentKinds: [any DocumentKind] {
        [CatalogDocumentKind(swiftPlugins: swiftPlugins), WordingDocumentKind()]
    }

    /// The journey builds on registration's effects (it runs after the engine's own consumers).
    public func consumers(for ruleSet: RuleSet) -> [any EventConsumer] {
        [JourneyConsumer(ruleSet: ruleSet, swiftPlugins: swiftPlugins)]
    }

    /// Its routes' part of the OpenAPI document, bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    public var routes: [FeatureRoute] {
        [
            FeatureRoute("POST", "/v1/dogs", access: .user([.bodyUser("user_id")]), DogRoutes.register),
            FeatureRoute("GET", "/v1/users/{user_id}/dogs", access: .user([.pathUser("user_id")]), UserDogsRoute.dogs),
            FeatureRoute("GET", "/v1/dogs", admin: true, DogSearchRoute.find),
            FeatureRoute("GET", "/v1/dogs/{dog_id}/today", access: .user([.pathDog("dog_id")]), DogRoutes.today),
            FeatureRoute("GET", "/v1/dogs/{dog_id}/journey", access: .user([.pathDog("dog_id")]), DogRoutes.journey),
            FeatureRoute(
                "GET", "/v1/dogs/{dog_id}/branches/{branch_id}", access: .user([.pathDog("dog_id")]), DogRoutes.branch),
            FeatureRoute(
                "GET", "/v1/dogs/{dog_id}/blocks/{block_id}/preview", access: .user([.pathDog("dog_id")]),
                DogRoutes.preview),
            FeatureRoute("GET", "/v1/dogs/{dog_id}/map", access: .user([.pathDog("dog_id")]), DogRoutes.map),
            FeatureRoute("GET", "/v1/dogs/{dog_id}/manifest", access: .user([.pathDog("dog_id")]), DogRoutes.manifest),
            FeatureRoute(
                "GET", "/v1/dogs/{dog_id}/blocks/{block_id}", access: .user([.pathDog("dog_id")]), DogRoutes.block),
            FeatureRoute(
                "GET", "/v1/dogs/{dog_id}/records", access: .user([.pathDog("dog_id")]), DogRecordsRoute.records),
        ]
            + BlockStepRoute.allCases.map { step in
                FeatureRoute(
                    "POST", "/v1/dogs/{dog_id}/blocks/{block_id}/\(step.rawValue)", access: .user([.pathDog("dog_id")])
                ) {
                    service, request, parameters throws(APIError) in
                    try DogRoutes.blockStep(step, service, request, parameters)
                }
            }
    }

    /// Today's recommendation, offer and continue card, and each path's Now node.
    public func previewDecisions(dog: String, store: any StoreReader, evaluators: [RuleEvaluator], now: Double) throws
        -> [JSONObject]
    {
        try JourneyPreviewDecisions.decisions(dog: dog, store: store, evaluators: evaluators, now: now)
    }

    public var texts: [TextUse] {
        let block = "GET /v1/dogs/{dog_id}/blocks/{block_id}"
        let result = "block_completed (changed[].text)"
        return [
            TextUse(
                ManifestDocument.laterKey,
                usedBy: block + " (check.content.later.label), the manifest's check.fallback.text"),
            TextUse(JourneyViews.observationCaptionKey, usedBy: block + " (self_screen caption)"),
            TextUse(JourneyViews.vetCaptionKey, usedBy: block + " (health hands_on caption), check_answered"),
            TextUse(JourneyViews.lookLikeKey, usedBy: block + " (self_screen question)"),
            TextUse(JourneyViews.startKey, usedBy: block + " (preview.start)"),
            TextUse(BlockResult.Keys.weight, usedBy: result), TextUse(BlockResult.Keys.prediction, usedBy: result),
            TextUse(BlockResult.Keys.noted, usedBy: result), TextUse(BlockResult.Keys.courseStarted, usedBy: result),
            TextUse(
                AutoComplete.foundKey,
                usedBy: "the auto-complete offer of an action without its own journey.auto_complete.<action>"),
            TextUse(JourneyViews.progressKey, usedBy: "GET /v1/dogs/{dog_id}/journey (label)"),
            TextUse(JourneyViews.captionKey, usedBy: "GET /v1/dogs/{dog_id}/map (caption)"),
            TextUse(ManifestBuilder.recommendedFirstKey, usedBy: "GET /v1/dogs/{dog_id}/journey (insights[].label)"),
            TextUse(ManifestBuilder.recommendedFirstTextKey, usedBy: "GET /v1/dogs/{dog_id}/journey (insights[].text)"),
        ]
    }

    /// Each catalog text's key, used where the catalog puts it: its block, branch or metric
    /// (`Rules/journey/catalog.yaml:43 (block weight-baseline)`).
    public func textUses(in ruleSet: RuleSet) -> [TextUse] {
        let keys = ruleSet.texts.keys
        var uses: [TextUse] = []
        for catalog in ruleSet.documents(of: Catalog.self) {
            var places: [String: String] = [
                "journey.catalog.\(catalog.id)":
                    "\(catalog.location.file):\(catalog.location.line) (catalog \(catalog.id))"
            ]
            for metric in catalog.metrics {
                places["journey.metric.\(metric.key)"] =
                    "\(metric.location.file):\(metric.location.line) (metric \(metric.key))"
            }
            for branch in catalog.branches {
                places["journey.branch.\(branch.id)"] =
                    "\(branch.location.file):\(branch.location.line) (branch \(branch.id))"
                for block in branch.blocks {
                    places["journey.block.\(block.id)"] =
                        "\(block.location.file):\(block.location.line) (block \(block.id))"
                }
            }
            for key in keys where key.hasPrefix("journey.") {
                let prefix = key.split(separator: ".").prefix(3).joined(separator: ".")
                if let place = places[prefix] { uses.append(TextUse(key, usedBy: place)) }
            }
        }
        return uses
    }

    public var commands: [any Command.Type] {
        [
            DogTodayCommand.self, DogJourneyCommand.self, DogPathCommand.self, DogPreviewCommand.self,
            DogMapCommand.self, DogManifestCommand.self, DogBlockCommand.self, ExplainCommand.self,
        ]
    }

    public var commandGroups: [String: String] {
        [
            "dog":
                "Show a dog's Dog Journey: today, the journey, a branch path, a block preview, the map, the manifest, a block's flow."
        ]
    }
}
