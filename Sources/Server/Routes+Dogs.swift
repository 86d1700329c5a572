import Core
import Engine
import Foundation
import HTTP
import JQ
import Journey
import RuleEngine
import Store

/// The steps of a block that the app reports, each an event through the one ingest path.
enum BlockStepRoute: String, CaseIterable {
    case start, theory, check, action, accept
}

/// Registering dogs, their Dog Journey screens, and the block flow.
enum DogRoutes {
    // MARK: Registration

    /// `POST /v1/dogs`: a `dog_registered` event. Without an `event_id`, the event id is
    /// `register-<dog_id>`, so that registering twice is idempotent.
    static func register(_ service: JourneyService, _ request: HTTPRequest, _: [String: String]) throws(APIError)
        -> HTTPResponse
    {
        var body = try RequestBody.object(request)
        var fields = Fields(body)
        let dogID = fields.string("dog_id", required: true)
        let userID = fields.string("user_id", required: true)
        let eventID = fields.string("event_id")
        let occurredAt = fields.string("occurred_at")
        try fields.check(allowingUnknown: true)
        for key in ["dog_id", "user_id", "event_id", "occurred_at"] { body[key] = nil }
        let event: JSONObject = [
            "event_id": .string(eventID ?? "register-\(dogID!)"), "user_id": .string(userID!),
            "type": "dog_registered", "dog_id": .string(dogID!),
            "occurred_at": .string(occurredAt ?? Timestamp.format(service.configuration.clock())),
            "payload": .object(body),
        ]
        let result = service.ingest([.object(event)])[0]
        // 201 when this call registered the dog; 200 when it already was (same owner, same data).
        let created = result.effects.contains { $0["type"] == "dog_registered" }
        return respond(result, created: created, links: ["today": .string("/v1/dogs/\(pathSegment(dogID!))/today")])
    }

    /// `text` percent-encoded as one path segment (a `/`, `?` or `#` in an id stays inside it).
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The response for one ingested event: `201`/`200` with the result, or the refusal.
    static func respond(_ result: IngestResult, created: Bool = false, links: JSONObject = [:], extra: JSONObject = [:])
        -> HTTPResponse
    {
        guard result.status != .rejected else {
            let status = JourneyService.status(ofRejection: result.code)
            return .error(
                status, code: result.code ?? "rejected", message: result.message ?? "the event was refused",
                headers: status == 503 ? [("Retry-After", "1")] : [])
        }
        guard case .object(var object) = result.json else { return .json(result.json) }
        if !links.isEmpty { object["links"] = .object(links) }
        for (key, value) in extra { object[key] = value }
        return .json(.object(object), status: created && result.status == .accepted ? 201 : 200)
    }

    // MARK: Views

    static func today(_ service: JourneyService, _ request: HTTPRequest, _ p: [String: String]) throws(APIError)
        -> HTTPResponse
    {
        try view(service, p, key: "today") { try $0.today(p["dog"]!) }
    }

    static func journey(_ service: JourneyService, _ request: HTTPRequest, _ p: [String: String]) throws(APIError)
        -> HTTPResponse
    {
        try view(service, p, key: "journey") { try $0.journey(p["dog"]!) }
    }

    static func branch(_ service: JourneyService, _ request: HTTPRequest, _ p: [String: String]) throws(APIError)
        -> HTTPResponse
    {
        try view(service, p, key: "branch|" + p["branch"]!) { try $0.path(p["dog"]!, branch: p["branch"]!) }
    }

    static func preview(_ service: JourneyService, _ request: HTTPRequest, _ p: [String: String]) throws(APIError)
        -> HTTPResponse
    {
        try view(service, p, key: "preview|" + p["block"]!) { try $0.preview(p["dog"]!, block: p["block"]!) }
    }

    static func map(_ service: JourneyService, _ request: HTTPRequest, _ p: [String: String]) throws(APIError)
        -> HTTPResponse
    {
        try view(service, p, key: "map") { try $0.map(p["dog"]!) }
    }

    /// A view, from the worker's cache while the dog's data and the rules are unchanged.
    private static func view(
        _ service: JourneyService, _ p: [String: String], key: String, _ compute: (JourneyViews) throws -> JSON
    ) throws(APIError) -> HTTPResponse {
        let dog = p["dog"]!
        let now = service.configuration.clock()
        let ttl = service.configuration.viewCacheSeconds
        let revision = service.generation.ruleSet.revision
        let cacheKey = dog + "|" + key
        var version: Int64 = 0
        var changes: UInt64 = 0
        var external: Int64 = 0
        if ttl > 0 {
            do {
                // The counter first: a commit it does not show yet moves the external version.
                changes = service.control.changes(of: dog)
                external = try service.externalVersion()
                if var entry = service.viewCache.entry(cacheKey, revision: revision, now: now, ttl: ttl) {
                    if entry.changes == changes, entry.external == external { return entry.response }
                    version = try service.store.dataVersion(dog: dog)
                    if entry.version == version, entry.changes == changes {
                        entry.external = external
                        service.viewCache.store(cacheKey, entry)
                        return entry.response
                    }
                } else {
                    version = try service.store.dataVersion(dog: dog)
                }
            } catch {
                throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
            }
        }
        let views = JourneyViews(store: service.store, evaluator: service.generation.evaluator, now: now)
        let value: JSON
        do {
            value = try compute(views)
        } catch let error as JourneyViewError {
            throw APIError.notFound(error.code.rawValue, error.message)
        } catch {
            throw APIError(500, "view_failed", "the view could not be computed: \(error)")
        }
        let response = HTTPResponse.json(value)
        if ttl > 0 {
            service.viewCache.store(
                cacheKey,
                ViewCache.Entry(
                    version: version, changes: changes, external: external, revision: revision, computedAt: now,
                    response: response))
        }
        return response
    }

    // MARK: Block flow

    /// `POST /v1/dogs/{dog}/blocks/{block}/start|theory|check|action|accept`: the step as an
    /// event of the dog's owner; answers with the result and the block's preview after it.
    static func blockStep(
        _ step: BlockStepRoute, _ service: JourneyService, _ request: HTTPRequest, _ p: [String: String]
    ) throws(APIError) -> HTTPResponse {
        let dogID = p["dog"]!
        let blockID = p["block"]!
        var fields = Fields(try RequestBody.object(request, optional: true))
        let eventID = fields.string("event_id")
        let occurredAt = fields.string("occurred_at")
        var type: String
        var payload: JSONObject = ["block_id": .string(blockID)]
        switch step {
        case .start:
            type = "block_started"
        case .theory:
            type = "theory_viewed"
            if let card = fields.integer("card", in: 0...100) { payload["card"] = .number(Double(card)) }
        case .check:
            type = "check_answered"
            if let answer = fields.object("answer", required: true) { payload["answer"] = .object(answer) }
        case .accept:
            type = "auto_complete_accepted"
        case .action:
            let events = JourneyConsumer.appEvents
            type = fields.string("type", required: true) ?? ""
            if !type.isEmpty, events[type] == nil {
                fields.problem(
                    "type", "must be one of the app's action events: \(events.keys.sorted().joined(separator: ", "))")
            }
            payload = fields.object("payload") ?? [:]
        }
        try fields.check()
        let dog: DogProfile?
        do {
            dog = try service.store.dog(dogID)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        guard let dog else { throw APIError.notFound("unknown_dog", "no dog \(dogID)") }
        let event: JSONObject = [
            "event_id": .string(eventID ?? "api-" + UUID().uuidString.lowercased()), "user_id": .string(dog.userID),
            "type": .string(type), "dog_id": .string(dogID),
            "occurred_at": .string(occurredAt ?? Timestamp.format(service.configuration.clock())),
            "payload": .object(payload),
        ]
        let result = service.ingest([.object(event)])[0]
        var extra: JSONObject = [:]
        if result.status != .rejected {
            let views = JourneyViews(
                store: service.store, evaluator: service.generation.evaluator, now: service.configuration.clock())
            extra["block"] = (try? views.preview(dogID, block: blockID)) ?? .null
        }
        return respond(result, extra: extra)
    }
}
