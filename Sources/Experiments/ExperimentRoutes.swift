import Core
import FeatureKit
import HTTP
import RuleEngine

/// An experiment's results for product managers (admin).
enum ExperimentRoutes {
    /// `GET /v1/experiments/{experiment}/report`: what `journey experiments report KEY --format
    /// json` prints, from the rules served and the store, as of the service's clock.
    static func report(_ service: any ServiceContext, _: HTTPRequest, _ parameters: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let key = try parameters.require("experiment")
        let catalog = ExperimentCatalog(ruleSet: service.ruleSet)
        guard let experiment = catalog[key] else {
            throw APIError.notFound("unknown_experiment", catalog.unknown(key))
        }
        do {
            let report = try ExperimentReport(
                experiment: experiment, store: service.store, evaluator: service.evaluator, now: service.now())
            return .json(report.json)
        } catch {
            throw APIError(503, "store_unavailable", "the store could not be read: \(error)")
        }
    }
}
