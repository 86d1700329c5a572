import Core
import Engine
import FeatureKit
import Foundation
import HTTP
import JQ
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
    static func register(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        var body = try RequestBody.object(request)
        var fields = FieldReader(body, maximumLength: RequestBody.maximumTextLength)
        let dogID = (try? fields.identifier("dog_id")) ?? ""
        let userID = (try? fields.identifier("user_id")) ?? ""
        let eventID = try? fields.optionalIdentifier("event_id")
        let occurredAt = try? fields.optionalString("occurred_at")
        try fields.check(allowingUnknown: true)
        for key in ["dog_id", "user_id", "event_id", "occurred_at"] { body[key] = nil }
        let event: JSONObject = [
            "event_id": .string(eventID ?? "register-\(dogID)"), "user_id": .string(userID),
            "type": "dog_registered", "dog_id": .string(dogID),
            "occurred_at": .string(occurredAt ?? Timestamp.format(service.now())),
            "payload": .object(body),
        ]
        let result = service.ingest([.object(event)])[0]
        // 201 when this call registered the dog; 200 when it already was (same owner, same data).
        let created = result.effects.contains { $0["type"] == "dog_registered" }
        let dog = "/v1/dogs/\(RouteEvents.pathSegment(dogID))"
        // The rest of the body is the event's payload: its fields are named as the body has them.
        return service.respond(
            result, to: request, created: created,
            links: ["today": .string(dog + "/today"), "manifest": .string(dog + "/manifest")],
            fieldsFrom: [("/payload", "")])
    }

    // MARK: Views

    static func today(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let dog = try p.require("dog_id")
        return try view(service, request, dog: dog, key: "today") { try $0.today(dog) }
    }

    static func journey(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let dog = try p.require("dog_id")
        return try view(service, request, dog: dog, key: "journey") { try $0.journey(dog) }
    }

    static func branch(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (dog, branch) = (try p.require("dog_id"), try p.require("branch_id"))
        return try view(service, request, dog: dog, key: "branch|" + branch) { try $0.path(dog, branch: branch) }
    }

    static func preview(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (dog, block) = (try p.require("dog_id"), try p.require("block_id"))
        return try view(service, request, dog: dog, key: "preview|" + block) { try $0.preview(dog, block: block) }
    }

    /// `GET /v1/dogs/{dog_id}/manifest`: the journey map in the product document's shape.
    static func manifest(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let dog = try p.require("dog_id")
        return try view(service, request, dog: dog, key: "manifest") { try $0.manifest(dog) }
    }

    /// `GET /v1/dogs/{dog_id}/blocks/{block_id}`: everything the block flow draws.
    static func block(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let (dog, block) = (try p.require("dog_id"), try p.require("block_id"))
        return try view(service, request, dog: dog, key: "block|" + block) { try $0.block(dog, block: block) }
    }

    static func map(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let dog = try p.require("dog_id")
        return try view(service, request, dog: dog, key: "map") { try $0.map(dog) }
    }

    /// A journey view of `dog`, kept by the service while the dog's data, the rules and the
    /// quarantine stay the same. With `?explain=true` (admin only), computed afresh with every
    /// rule's variant, assignment, input and outputs under `explain`.
    private static func view(
        _ service: any ServiceContext, _ request: HTTPRequest, dog: String, key: String,
        _ compute: (JourneyViews) throws -> JSON
    ) throws(APIError) -> HTTPResponse {
        let texts = service.texts(for: request)
        if let explain = request.query("explain"), explain != "false" {
            guard explain == "true" else { throw APIError(400, "invalid_query", "explain must be true or false") }
            if let refusal = service.adminRefusal(request) { throw refusal }
            return try answer(service, texts, compute, explain: true)
        }
        // Kept per locale: the same view is another text in another locale.
        return try service.dogView(dog: dog, key: key + "\u{0}" + texts.locale) { () throws(APIError) -> HTTPResponse in
            try answer(service, texts, compute, explain: false)
        }
    }

    /// The view with its decision (the revision and the rules with their variants it came
    /// from); with `explain`, each evaluation in detail too.
    private static func answer(
        _ service: any ServiceContext, _ texts: RequestTexts, _ compute: (JourneyViews) throws -> JSON, explain: Bool
    ) throws(APIError) -> HTTPResponse {
        let views = JourneyViews(
            store: service.store, evaluator: service.evaluator, now: service.now(), texts: texts, log: service.log)
        let log = DecisionLog(detailed: explain)
        service.evaluator.decisionLog = log
        defer { service.evaluator.decisionLog = nil }
        do {
            let view = try compute(views)
            guard case .object(var object) = view else { return HTTPResponse.json(view) }
            object["decision"] = log.json(revision: service.ruleSet.revision)
            // A rule that failed or is quarantined never fails the view: its fallback (or
            // nothing) answered, and the view says so.
            let degraded = Degradation.of(log.entries)
            if !degraded.isEmpty { object["degraded"] = .array(degraded.map(\.json)) }
            if explain {
                object["explanations"] = Explanation.evaluations(
                    log.entries.map { Explanation.Step($0, evaluator: service.evaluator, now: service.now()) },
                    full: true)
            }
            return HTTPResponse.json(.object(object))
        } catch let error as JourneyViewError {
            throw APIError.notFound(error.code.rawValue, error.message)
        } catch {
            throw APIError(500, "view_failed", "the view could not be computed: \(error)")
        }
    }

    // MARK: Block flow

    /// A step the block's state refuses, before any event: an unknown block (`404`), a locked
    /// one, a check answered again on a completed block, an auto-complete accepted when the
    /// action is already done (`409`), and an app event of another action than the block's (a
    /// weight saved on a block whose action is an observation), refused with the event the
    /// block waits for. Each names its cause in `errors`. (`POST /v1/events` takes any app
    /// event.)
    private static func checkStep(
        _ step: BlockStepRoute, type: String, of blockID: String, dog dogID: String, _ service: any ServiceContext
    )
        throws(APIError)
    {
        let views = JourneyViews(
            store: service.store, evaluator: service.evaluator, now: service.now(), log: service.log)
        let state: JourneyState
        do {
            state = try views.state(dogID)
        } catch let error as JourneyViewError {
            throw APIError.notFound(error.code.rawValue, error.message, parameter: "dog_id")
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        guard let block = state.map.block(blockID) else {
            throw APIError.notFound(
                JourneyViewError.Code.unknownBlock.rawValue,
                "\(state.map.dog.name)'s journey has no block `\(blockID)`",
                parameter: "block_id")
        }
        func refuse(_ status: Int, _ code: String, _ message: String) -> APIError {
            APIError(status, code, message, errors: [APIError.parameterEntry("block_id", .invalid, message)])
        }
        if let locked = state.lockedMessage(blockID) { throw refuse(422, "invalid", locked) }
        let done = state.steps[blockID] ?? []
        switch step {
        case .check where state.isCompleted(blockID):
            throw refuse(
                409, "block_completed",
                "block `\(blockID)` is completed: its check was answered (a new measurement is an app event)")
        case .accept where done.contains("action"):
            throw refuse(409, "already_done", "block `\(blockID)`'s action is already done: nothing to accept")
        case .action:
            let expected = JourneyConsumer.appEvents.filter { $0.value == block.actionType }.keys.sorted()
            guard JourneyConsumer.appEvents[type] != block.actionType else { return }
            let problem =
                expected.isEmpty
                ? "is \(type); block `\(blockID)`'s action (\(block.actionType)) is not done by an app event"
                : "is \(type); block `\(blockID)`'s action is \(block.actionType): send \(expected.joined(separator: " or "))"
            let error = FieldError(.invalid, at: "/type", problem)
            throw APIError(422, "invalid_request", error.description, errors: [APIError.entry(error)])
        default:
            return
        }
    }

    /// `POST /v1/dogs/{dog_id}/blocks/{block_id}/start|theory|check|action|accept`: the step as an
    /// event of the dog's owner; answers with the result and the block's preview after it.
    static func blockStep(
        _ step: BlockStepRoute, _ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters
    ) throws(APIError) -> HTTPResponse {
        let dogID = try p.require("dog_id")
        let blockID = try p.require("block_id")
        var fields = try RequestBody.fields(request, optional: true)
        let eventID = try? fields.optionalIdentifier("event_id")
        let occurredAt = try? fields.optionalString("occurred_at")
        var type: String
        var payload: JSONObject = ["block_id": .string(blockID)]
        switch step {
        case .start:
            type = "block_started"
        case .theory:
            type = "theory_viewed"
            if let card = try? fields.optionalInteger("card", in: 0...100) { payload["card"] = .number(Double(card)) }
        case .check:
            type = "check_answered"
            if let answer = try? fields.object("answer") { payload["answer"] = .object(answer) }
            if let fallback = try? fields.optionalBool("answers_fallback") { payload["fallback"] = .bool(fallback) }
            fields.renamed("fallback", to: "answers_fallback")
        case .accept:
            type = "auto_complete_accepted"
        case .action:
            let events = JourneyConsumer.appEvents
            type = (try? fields.string("type")) ?? ""
            if !type.isEmpty, events[type] == nil {
                fields.fail(
                    "type", .invalid,
                    "must be one of the app's action events: \(events.keys.sorted().joined(separator: ", "))")
            }
            payload = (try? fields.optionalObject("payload")) ?? [:]
        }
        try fields.check()
        let dog: DogProfile?
        do {
            dog = try service.store.dog(dogID)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        guard let dog else { throw APIError.notFound("unknown_dog", "no dog \(dogID)", parameter: "dog_id") }
        try checkStep(step, type: type, of: blockID, dog: dogID, service)
        let event: JSONObject = [
            "event_id": .string(eventID ?? RouteEvents.newID()), "user_id": .string(dog.userID),
            "type": .string(type), "dog_id": .string(dogID),
            "occurred_at": .string(occurredAt ?? Timestamp.format(service.now())),
            "payload": .object(payload),
        ]
        let result = service.ingest([.object(event)])[0]
        var extra: JSONObject = [:]
        if result.status != .rejected {
            let views = JourneyViews(
                store: service.store, evaluator: service.evaluator, now: service.now(),
                texts: service.texts(for: request), log: service.log)
            extra["block"] = (try? views.preview(dogID, block: blockID)) ?? .null
        }
        // The event's payload members that came from the body are named as the body has them.
        return service.respond(
            result, to: request, extra: extra,
            fieldsFrom: step == .action
                ? [("/payload", "/payload")]
                : [
                    ("/payload/answer", "/answer"), ("/payload/fallback", "/answers_fallback"),
                    ("/payload/card", "/card"),
                ],
            otherwise: "block_id")
    }
}
