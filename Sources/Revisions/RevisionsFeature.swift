import Core
import FeatureKit
import Foundation

/// Rule revisions as a part of the engine that plugs in like a feature: its commands
/// (publish, revisions, show, diff, rollback, audit) and its admin routes.
public struct RevisionsFeature: Feature {
    public init() {}

    public var name: String { "revisions" }

    public var routes: [FeatureRoute] {
        RevisionRoutes.routes + ParameterRoutes.routes + GovernanceRoutes.routes + TextRoutes.routes
            + AppEventRoutes.routes
    }

    /// The gates of a revision sent to the service, run away from the worker.
    public var isolatedJobs: [IsolatedJob] { [IsolatedGates.job] }

    /// Its routes' part of the OpenAPI document, bundled as `openapi.json`.
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? {
        try OpenAPIDocument.part(at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: name)
    }

    public var commands: [any Command.Type] {
        [
            PublishCommand.self, RevisionsCommand.self, ShowRevisionCommand.self, DiffRevisionsCommand.self,
            RollbackCommand.self, AuditCommand.self, PreviewCommand.self,
        ]
    }
}
