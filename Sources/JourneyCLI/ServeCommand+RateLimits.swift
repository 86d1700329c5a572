import CommandKit
import Server

extension ServeCommand {
    /// Each user's requests per second when the app routes are reachable from outside (tokens,
    /// or --insecure-no-auth), and the burst a full bucket holds.
    static let defaultRequestLimit = RateLimit(perSecond: 50, burst: 100)
    /// Each user's events per second; the burst holds a full batch of `POST /v1/events`.
    static let defaultEventLimit = RateLimit(perSecond: 100, burst: 1000)

    static let rateLimitOptions = [
        OptionSpec(
            long: "user-rate-limit", valueName: "n",
            help: "Each user's app requests per second; over it, 429 with Retry-After (0: no limit).",
            defaultValue: "50 with tokens or --insecure-no-auth, else none"),
        OptionSpec(
            long: "user-rate-burst", valueName: "n", help: "Requests a user may make at once.",
            defaultValue: "twice the rate"),
        OptionSpec(
            long: "user-event-limit", valueName: "n",
            help: "Each user's events per second (a POST /v1/events counts its events; 0: no limit).",
            defaultValue: "100 with tokens or --insecure-no-auth, else none"),
        OptionSpec(
            long: "user-event-burst", valueName: "n", help: "Events a user may send at once.",
            defaultValue: "1000 (a full batch)"),
    ]

    /// The rate flags. Unauthenticated on loopback (development) nothing is limited unless a
    /// flag asks; with tokens or --insecure-no-auth the defaults apply.
    static func rateLimits(_ arguments: ParsedArguments, _ configuration: inout ServiceConfiguration)
        throws(UsageError)
    {
        let exposed = configuration.tokens != nil || configuration.insecureNoAuth
        configuration.userRequestLimit = try limit(
            arguments, rate: "user-rate-limit", burst: "user-rate-burst", fallback: exposed ? defaultRequestLimit : nil,
            defaultBurst: { $0 * 2 })
        configuration.userEventLimit = try limit(
            arguments, rate: "user-event-limit", burst: "user-event-burst", fallback: exposed ? defaultEventLimit : nil,
            defaultBurst: { _ in defaultEventLimit.burst })
    }

    /// The start-up line's word on the limits.
    static func rateLimitSummary(_ configuration: ServiceConfiguration) -> String {
        let limits = [
            configuration.userRequestLimit.map {
                "\(RateLimit.format($0.perSecond)) requests/s (burst \(RateLimit.format($0.burst)))"
            },
            configuration.userEventLimit.map {
                "\(RateLimit.format($0.perSecond)) events/s (burst \(RateLimit.format($0.burst)))"
            },
        ].compactMap { $0 }
        return limits.isEmpty
            ? "no per-user rate limits"
            : "per-user rate limits: " + limits.joined(separator: ", ") + " (shared by the workers)"
    }

    /// The flags that give a worker the same limits.
    static func rateLimitFlags(_ configuration: ServiceConfiguration) -> [String] {
        func flags(_ limit: RateLimit?, _ rate: String, _ burst: String) -> [String] {
            guard let limit else { return ["--\(rate)", "0"] }
            return ["--\(rate)", RateLimit.format(limit.perSecond), "--\(burst)", RateLimit.format(limit.burst)]
        }
        return flags(configuration.userRequestLimit, "user-rate-limit", "user-rate-burst")
            + flags(configuration.userEventLimit, "user-event-limit", "user-event-burst")
    }

    private static func limit(
        _ arguments: ParsedArguments, rate: String, burst: String, fallback: RateLimit?,
        defaultBurst: (Double) -> Double
    ) throws(UsageError) -> RateLimit? {
        let perSecond = try number(arguments, rate)
        let burstValue = try number(arguments, burst)
        guard let perSecond else {
            guard var fallback else { return nil }
            if let burstValue { fallback.burst = max(burstValue, 1) }
            return fallback
        }
        guard perSecond > 0 else { return nil }
        return RateLimit(perSecond: perSecond, burst: max(burstValue ?? defaultBurst(perSecond), 1))
    }

    private static func number(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> Double? {
        guard let text = arguments.values[name]?.last else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0, value <= 1_000_000 else {
            throw UsageError(
                message: "The value '\(text)' for '--\(name)' must be a number from 0 to 1000000", command: spec)
        }
        return value
    }
}
