import Core
import FeatureKit
import HTTP
import RuleEngine
import Store

/// `GET /v1/dogs/{dog_id}/records[?kind=weight&limit=100]`: the dog's dated profile records
/// (weights, observations, predictions, vaccines…), newest first — the profile's depth and
/// "weight added to history" for the app. A `kind` the served revision cannot write
/// (``RecordKinds``) is refused (422), so a typo is not an empty history.
enum DogRecordsRoute {
    static func records(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let dogID = try p.require("dog_id")
        let kind = request.query("kind")
        if let kind, !Identifier.isValid(kind) {
            throw APIError(400, "invalid_query", "kind must be a record kind such as weight (letters, digits, _ - .)")
        }
        if let kind {
            let known = RecordKinds.of(service.ruleSet)
            guard known.contains(kind) else {
                let message =
                    "kind `\(kind)` is not a record kind this revision writes (known: \(known.sorted().joined(separator: ", ")))"
                throw APIError(
                    422, "invalid_query", message,
                    errors: [APIError.parameterEntry("kind", .invalid, message, in: "query")])
            }
        }
        var limit = 100
        if let text = request.query("limit") {
            guard let n = Int(text), (1...1_000).contains(n) else {
                throw APIError(400, "invalid_query", "limit must be a number from 1 to 1000")
            }
            limit = n
        }
        let records: [ProfileRecord]
        do {
            guard try service.store.dog(dogID) != nil else {
                throw APIError.notFound("unknown_dog", "no dog \(dogID)")
            }
            records = try service.store.records(dog: dogID, kind: kind)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        let newest = records.reversed().prefix(limit)
        return .json([
            "dog_id": .string(dogID), "kind": kind.map(JSON.string) ?? .null, "total": .number(Double(records.count)),
            "records": .array(newest.map(\.apiJSON)),
        ])
    }
}

extension ProfileRecord {
    /// `{id, kind, recorded_at, payload, source, block_id}` as the app reads it.
    var apiJSON: JSON {
        [
            "id": id.map { .number(Double($0)) } ?? .null, "kind": .string(kind),
            "recorded_at": .string(recordedAtText),
            "payload": payload, "source": .string(source), "block_id": blockID.map(JSON.string) ?? .null,
        ]
    }
}
