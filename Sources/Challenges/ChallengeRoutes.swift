import Core
import Engine
import FeatureKit
import Foundation
import HTTP
import JQ
import RuleEngine
import Store

/// Challenges: the list, one challenge's progress, its feed and ranking, and joining.
enum ChallengeRoutes {
    /// `GET /v1/challenges?user_id=`: running and upcoming challenges with progress, deadline and
    /// participant count (and the user's standing).
    static func list(_ service: any ServiceContext, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try request.refuseRenamedQuery("user", to: "user_id")
        do {
            let user = request.query("user_id")
            return .json(
                ChallengeViews.localized(
                    try ChallengeViews.list(
                        catalog: ChallengeCatalog(ruleSet: service.ruleSet), store: service.store, user: user,
                        now: service.now()),
                    texts: service.texts(for: request, user: user)))
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `GET /v1/challenges/{challenge_id}?user_id=`: totals, the user's current value, completion and
    /// rank, the ranking and the newest feed lines; with an `ETag` (304 for `If-None-Match`).
    static func show(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try request.refuseRenamedQuery("user", to: "user_id")
        let instance = try resolve(service, try p.require("challenge_id"))
        do {
            let user = request.query("user_id")
            let view = ChallengeViews.localized(
                try ChallengeViews.show(
                    instance, store: service.store, user: user, now: service.now(),
                    naming: try naming(service, request)),
                texts: service.texts(for: request, user: user))
            // CH-03: polled for its "real-time feel", so tagged; the countdown moves on its own
            // (from `ends_at`), so it is left out of the tag.
            var tagged = view
            if case .object(var object) = view {
                object["seconds_left"] = nil
                tagged = .object(object)
            }
            return .json(view, taggedBy: tagged, for: request)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `GET /v1/challenges/{challenge_id}/share?user_id=`: the share card of the user's standing.
    static func share(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try request.refuseRenamedQuery("user", to: "user_id")
        let instance = try resolve(service, try p.require("challenge_id"))
        guard let user = request.query("user_id"), !user.isEmpty else {
            throw APIError(
                422, "invalid_request", "user_id is required: whose standing to share",
                errors: [APIError.parameterEntry("user_id", .missing, "required", in: "query")])
        }
        return try APIError.answering {
            try RewardViews.share(
                instance, user: user, store: service.store, now: service.now(),
                texts: service.texts(for: request, user: user))
        }
    }

    /// `GET /v1/users/{user_id}/rewards`: XP total and badges, with the challenge that granted each.
    static func rewards(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let user = try p.require("user_id")
        return try APIError.answering {
            try RewardViews.rewards(user: user, store: service.store, texts: service.texts(for: request, user: user))
        }
    }

    /// `GET /v1/challenges/{challenge_id}/feed?limit=`: the activity feed, newest first; with an
    /// `ETag` (304 for `If-None-Match`).
    static func feed(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try request.refuseRenamedQuery("user", to: "user_id")
        let instance = try resolve(service, try p.require("challenge_id"))
        let limit = try self.limit(request)
        do {
            let items = try service.store.challengeFeed(challenge: instance.id, limit: limit)
            let naming = try naming(service, request).knowing(items.map(\.userID), in: service.store)
            let feed = ChallengeViews.localized(
                [
                    "challenge_id": .string(instance.id),
                    "feed": .array(items.map { ChallengeViews.feedLine($0, of: instance, naming: naming) }),
                ], texts: service.texts(for: request))
            return .json(feed, taggedBy: feed, for: request)
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `GET /v1/challenges/{challenge_id}/ranking?limit=`: participants by value (head-to-head: sides).
    static func ranking(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        try request.refuseRenamedQuery("user", to: "user_id")
        let instance = try resolve(service, try p.require("challenge_id"))
        let limit = try self.limit(request)
        do {
            let naming = try naming(service, request)
            let view = try ChallengeViews.show(
                instance, store: service.store, user: nil, now: service.now(), feed: 0, naming: naming)
            var ranking = view["ranking"] ?? .array([])
            if instance.kind != .headToHead {
                let participants = try service.store.challengeRanking(challenge: instance.id, team: nil, limit: limit)
                let naming = try naming.knowing(participants.map(\.userID), in: service.store)
                ranking = .array(
                    participants.enumerated().map { index, participant in
                        .object(
                            (["rank": .number(Double(index + 1))] as JSONObject)
                                .adding(naming.fields(challenge: instance.id, user: participant.userID))
                                .adding([
                                    "value": .number(participant.value),
                                    "completed_at": participant.completedAt.map { .string(Timestamp.format($0)) }
                                        ?? .null,
                                ]))
                    })
            }
            return .json(
                ChallengeViews.localized(
                    [
                        "challenge_id": .string(instance.id), "type": .string(instance.kind.rawValue),
                        "ranking": ranking,
                    ], texts: service.texts(for: request)))
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
    }

    /// `POST /v1/challenges/{challenge_id}/join` with `{user_id, team_id?, event_id?, occurred_at?}`:
    /// a `challenge_joined` event through the one ingest path; the answer names the challenge's
    /// FCM topic to subscribe to (`push`).
    static func join(_ service: any ServiceContext, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let challenge = try p.require("challenge_id")
        var fields = try RequestBody.fields(request)
        let user = (try? fields.identifier("user_id")) ?? ""
        let team = try? fields.optionalString("team_id", maxLength: 64)
        fields.renamed("team", to: "team_id")
        let eventID = try? fields.optionalIdentifier("event_id")
        let occurredAt = try? fields.optionalString("occurred_at")
        try fields.check()
        var payload: JSONObject = ["challenge_id": .string(challenge)]
        if let team { payload["team"] = .string(team) }
        let event: JSONObject = [
            "event_id": .string(eventID ?? "join-\(challenge)"), "user_id": .string(user),
            "type": .string("challenge_joined"),
            "occurred_at": .string(occurredAt ?? Timestamp.format(service.now())),
            "payload": .object(payload),
        ]
        let result = service.ingest([.object(event)])[0]
        let joined = result.effects.contains { $0["type"] == "challenge_joined" }
        // CH-12: the app subscribes to the challenge's topic now, and unsubscribes after its end.
        return service.respond(
            result, to: request, created: joined, extra: ["push": ChallengeTopic.subscription(of: challenge)],
            fieldsFrom: [("/payload/team", "/team_id")], otherwise: "challenge_id")
    }

    /// Participants by handle, the reader's lines marked: the reader is the token's user, or
    /// `?user_id=` (checked against the token before the handler runs).
    private static func naming(_ service: any ServiceContext, _ request: HTTPRequest) throws -> ParticipantNaming {
        try ParticipantNaming.handles(
            store: service.store, viewer: service.principal?.user ?? request.query("user_id"), now: service.now())
    }

    private static func resolve(_ service: any ServiceContext, _ id: String) throws(APIError) -> ChallengeInstance {
        guard let instance = ChallengeCatalog(ruleSet: service.ruleSet).resolve(id) else {
            throw APIError.notFound("unknown_challenge", "no challenge \(id)", parameter: "challenge_id")
        }
        return instance
    }

    private static func limit(_ request: HTTPRequest) throws(APIError) -> Int {
        guard let text = request.query("limit") else { return 20 }
        guard let value = Int(text), (1...1000).contains(value) else {
            throw APIError(
                422, "invalid_request", "limit must be a whole number from 1 to 1000 (got \(text.prefix(40)))",
                errors: [["field": "limit", "message": "not a whole number from 1 to 1000"]])
        }
        return value
    }
}
