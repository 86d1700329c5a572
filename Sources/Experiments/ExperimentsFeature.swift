import Core
import FeatureKit
import Foundation
import RuleEngine
import Store

/// A/B experiments: GrowthBook assignment kept sticky in the store, choosing rule variants.
public struct ExperimentsFeature: Feature {
    public init() {}

    public var name: String { "experiments" }
    public var migrations: [Migration] { ExperimentSchema.migrations }
    /// A metric's `where:` condition.
    public var ruleKinds: [RuleKind] { [.experimentMetric] }
    public var documentKinds: [any DocumentKind] { [ExperimentsDocumentKind()] }

    /// Rules with an experiment get their variant from the subject's sticky assignment.
    public func prepare(_ evaluator: RuleEvaluator, store: any Store) {
        evaluator.variantChooser = ExperimentAssigner(
            catalog: ExperimentCatalog(ruleSet: evaluator.ruleSet), store: store)
    }

    /// The same choice from kept assignments, writing none.
    public func prepare(_ evaluator: RuleEvaluator, reader: (any StoreReader)?) {
        evaluator.variantChooser = ExperimentAssigner(
            catalog: ExperimentCatalog(ruleSet: evaluator.ruleSet), readingFrom: reader)
    }

    /// Its routes' part of the OpenAPI document, bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    public var routes: [FeatureRoute] {
        [FeatureRoute("GET", "/v1/experiments/{experiment}/report", admin: true, ExperimentRoutes.report)]
            + ExperimentEditRoutes.routes
    }

    public var commands: [any Command.Type] {
        [ExperimentsCommand.self, ExperimentReportCommand.self, AssignCommand.self]
    }
}
