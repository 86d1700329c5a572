import Core
import FeatureKit
import HTTP

/// The limits of each user's app requests and events per second (`--user-rate-limit`,
/// `--user-event-limit`), answered `429` with `Retry-After` when passed. Buckets are shared by
/// every worker of the service (``SharedRateLimiter``).
///
/// A request counts for the token's user; without tokens, for the user its path, query or
/// body names (a dog route: that dog). Service credentials (the push sender, the scraper, an
/// admin) and open routes are not limited. An app `POST` counts as one event, except
/// `POST /v1/events`, which counts its events (``chargeBatch(_:principal:)``).
struct UserRateLimits {
    let requests: SharedRateLimiter?
    let events: SharedRateLimiter?

    init(configuration: ServiceConfiguration, control: ControlBlock) {
        requests = configuration.userRequestLimit.map {
            SharedRateLimiter(limit: $0, words: control.rateTable(0), count: ControlBlock.rateTableWords)
        }
        events = configuration.userEventLimit.map {
            SharedRateLimiter(limit: $0, words: control.rateTable(1), count: ControlBlock.rateTableWords)
        }
    }

    var isOff: Bool { requests == nil && events == nil }

    /// Charges the request to its user (one request; an app `POST` also one event); the
    /// refusal when that is over a limit. `POST /v1/events` without a token is charged by
    /// ``chargeBatch(_:principal:)``, once its events' users are known.
    func admit(
        _ request: HTTPRequest, access: RouteAccess, principal: Principal?, parameters: [String: String]
    ) -> APIError? {
        guard !isOff, case .user(let bindings) = access else { return nil }
        let batch = bindings.contains { if case .bodyEvents = $0 { true } else { false } }
        let key: String
        switch principal {
        case .service?: return nil
        case .user(let user)?: key = "user " + user
        case nil:
            guard !batch, let named = Self.named(request, bindings: bindings, parameters: parameters) else {
                return nil
            }
            key = named
        }
        if let refusal = take(1, of: requests, for: key, what: "requests") { return refusal }
        if request.method == "POST", !batch { return take(1, of: events, for: key, what: "events") }
        return nil
    }

    /// Charges a batch of events: to the token's user, or without a token to each user the
    /// events name (a request and their events each).
    func chargeBatch(_ events: [JSON], principal: Principal?) -> APIError? {
        guard !isOff else { return nil }
        switch principal {
        case .service?: return nil
        case .user(let user)?: return take(events.count, of: self.events, for: "user " + user, what: "events")
        case nil:
            var counts: [String: Int] = [:]
            var order: [String] = []
            for event in events {
                guard let user = event["user_id"]?.stringValue else { continue }
                if counts[user] == nil { order.append(user) }
                counts[user, default: 0] += 1
            }
            for user in order {
                if let refusal = take(1, of: requests, for: "user " + user, what: "requests") { return refusal }
                if let refusal = take(counts[user] ?? 0, of: self.events, for: "user " + user, what: "events") {
                    return refusal
                }
            }
            return nil
        }
    }

    private func take(_ tokens: Int, of limiter: SharedRateLimiter?, for key: String, what: String) -> APIError? {
        guard let limiter, tokens > 0, case .refused(let wait) = limiter.take(tokens, for: key) else { return nil }
        let seconds = max(1, Int(wait.rounded(.up)))
        return APIError(
            429, "rate_limited",
            "\(key) is over the limit of \(RateLimit.format(limiter.limit.perSecond)) \(what) per second (burst \(RateLimit.format(limiter.limit.burst))); retry in \(seconds) s",
            headers: [("Retry-After", String(seconds))])
    }

    /// Without a token: the user the request names (path, query, body), else its dog.
    private static func named(_ request: HTTPRequest, bindings: [UserBinding], parameters: [String: String])
        -> String?
    {
        var dog: String?
        for binding in bindings {
            switch binding {
            case .pathUser(let name):
                if let user = parameters[name] { return "user " + user }
            case .queryUser(let name):
                if let user = request.query(name) { return "user " + user }
            case .bodyUser(let member):
                if case .string(let user)? = (try? RequestBody.object(request, optional: true))?[member] {
                    return "user " + user
                }
            case .pathDog(let name):
                dog = parameters[name].map { "dog " + $0 }
            case .bodyEvents:
                break
            }
        }
        return dog
    }
}
