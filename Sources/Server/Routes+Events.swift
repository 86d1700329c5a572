import Core
import Engine
import FeatureKit
import HTTP
import JQ

/// `POST /v1/events`: a batch through the one ingest path.
enum EventRoutes {
    /// Most events in one batch.
    static let maxBatch = 1000

    static func ingest(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        var fields = try RequestBody.fields(request)
        let events = try? fields.array("events")
        try fields.check()
        guard let events else { throw APIError(422, "invalid_request", "events is required") }
        guard !events.isEmpty else { throw APIError(422, "invalid_request", "events must not be empty") }
        guard events.count <= maxBatch else {
            throw APIError(413, "batch_too_large", "at most \(maxBatch) events per batch (got \(events.count))")
        }
        if let refusal = service.rateLimits.chargeBatch(events, principal: service.principal) { throw refusal }
        // Under libmicrohttpd the batch joins the next group commit (`GroupCommit`): answered
        // once the transaction that holds it has committed.
        if service.groupsCommits { return service.deferIngest(events, request: request) }
        return response(
            service.ingest(events), revision: service.generation.ruleSet.shortRevision,
            texts: RecipientTexts(service, request))
    }

    /// The answer to a batch: its results, in order, and their counts; each result's texts
    /// kept as keys (a plugin's interpretation, a reminder's push) written in its user's locale.
    static func response(_ results: some Collection<IngestResult>, revision: String, texts: RecipientTexts)
        -> HTTPResponse
    {
        let counts = Dictionary(grouping: results, by: \.status).mapValues(\.count)
        let body: JSON = [
            "results": .array(results.map { result in result.rendered { texts.texts(for: result.userID ?? "") }.json }),
            "accepted": .number(Double(counts[.accepted] ?? 0)),
            "duplicates": .number(Double(counts[.duplicate] ?? 0)),
            "rejected": .number(Double(counts[.rejected] ?? 0)),
            "revision": .string(revision),
        ]
        // Events the store could not take (a full disk): the whole answer says to retry, with
        // the results still there (those kept are duplicates when the batch is sent again).
        if results.contains(where: { $0.code == Rejection.Code.storageError.rawValue }) {
            return .json(body, status: 503, headers: [("Retry-After", "1")])
        }
        return .json(body)
    }
}
