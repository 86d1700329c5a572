import Core
import FeatureKit
import Foundation
import HTTP
import JQ
import RevisionStore
import RuleEngine
import Store

/// The admin endpoints (behind the bearer token): the rules served, reloading them, evaluating
/// a rule or an ad-hoc jq expression in the sandbox, lifting a quarantine.
enum AdminRoutes {
    static func rules(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let state = service.status.snapshot()
        return .json([
            "revision": .string(state.revision), "short_revision": .string(String(state.revision.prefix(12))),
            "loaded_at": .string(Timestamp.format(state.loadedAt)), "worker": .string(service.workerName),
            "last_reload": state.report?.json ?? .null,
            "quarantined": .array(state.quarantine.map(\.json)),
            "rules": .array(state.rules),
            "signed_in_as": .string(service.adminName(of: request)),
            "role": .string(service.principal?.adminRole?.name ?? AdminRole.admin.name),
        ])
    }

    static func reload(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let report = service.reloadNow(trigger: "admin")
        guard report.outcome == .refused else {
            return .json(["outcome": .string(report.outcome.rawValue), "report": report.json])
        }
        let errors: [JSON] =
            report.diagnostics.filter { $0.severity == .error }.map(\.json) + report.failedTests.map(\.json)
        var body: JSONObject = [
            "code": "rules_refused", "message": .string(report.message), "errors": .array(errors),
        ]
        body["report"] = report.json
        return .json(.object(body), status: 422)
    }

    static func evaluate(_ service: JourneyService, _ request: HTTPRequest, _ p: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        let id = try p.require("rule")
        var fields = try RequestBody.fields(request)
        let input = fields.member("input")
        let variant = try? fields.optionalString("variant")
        // Issue 42: `now` marks the app's map node and `fallback` is a check's fallback object.
        fields.renamed("now", to: "evaluated_at")
        fields.renamed("fallback", to: "use_fallback")
        let now = time(&fields, "evaluated_at", default: service.configuration.clock())
        let useFallback = (try? fields.optionalBool("use_fallback")) ?? false
        if input == nil { fields.fail("input", .missing, "is required (the rule's input `.`)") }
        try fields.check()
        guard let input else { throw APIError(422, "invalid_request", "input is required (the rule's input `.`)") }
        let evaluator = service.generation.evaluator
        guard evaluator.ruleSet.rule(id) != nil else {
            throw APIError.notFound("unknown_rule", "no rule `\(id)` in revision \(evaluator.ruleSet.shortRevision)")
        }
        do {
            let result = try evaluator.evaluate(
                id, input: JV(input), options: EvaluationOptions(variant: variant, now: now, useFallback: useFallback))
            var body: JSONObject = [
                "rule": .string(result.rule), "variant": .string(result.variant),
                "value": result.value ?? .null, "outputs": .array(result.outputs),
                "trace": .array(result.trace.map { ["kind": .string($0.kind.rawValue), "value": $0.value] }),
                "duration_ms": .number(Double(TestOutcome.milliseconds(result.duration)) ?? 0),
                "used_fallback": .bool(result.usedFallback),
                "revision": .string(evaluator.ruleSet.shortRevision),
            ]
            if let primary = result.primaryError {
                body["primary_error"] = ["code": .string(primary.code.rawValue), "message": .string(primary.message)]
            }
            return .json(.object(body))
        } catch {
            let status = error.code == .unknownVariant ? 404 : 422
            var errors: [JSON] = []
            if let output = error.output { errors.append(["output": output]) }
            throw APIError(status, error.code.rawValue, error.message, errors: errors)
        }
    }

    static func liftQuarantine(_ service: JourneyService, _ request: HTTPRequest, _ p: RouteParameters)
        throws(APIError) -> HTTPResponse
    {
        let rule = try p.require("rule")
        // `?input=dog:x` lifts the quarantine for that input only; without it, every record.
        let input = request.query("input")
        if let input, input.isEmpty { throw APIError(400, "invalid_query", "input must name a quarantined input") }
        let lifted: Int
        do {
            lifted = try service.store.liftQuarantine(rule: rule, input: input)
            if lifted > 0 {
                try service.store.appendAudit(
                    AuditEntry(
                        at: service.now(), actor: service.adminName(of: request), action: "lift_quarantine",
                        subject: rule,
                        message: request.query("reason") ?? "lifted through the admin API",
                        detail: ["records": .number(Double(lifted)), "input": input.map(JSON.string) ?? .null]))
            }
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        guard lifted > 0 else {
            throw APIError.notFound(
                "not_quarantined", "rule `\(rule)` is not quarantined\(input.map { " for input `\($0)`" } ?? "")")
        }
        service.control.quarantineChanged()
        service.refreshQuarantine()
        return .json(
            ["rule": .string(rule), "input": input.map(JSON.string) ?? .null, "lifted": .number(Double(lifted))])
    }

    /// `POST /v1/eval`: an ad-hoc expression in the rules' sandbox (no `$ENV`, no input, imports
    /// only from the served `lib/`), with a budget. It runs in a separate short-lived process:
    /// libjq 1.6 aborts or crashes on some expressions (`1e300 | todate`), and an ad-hoc
    /// expression must not take a worker down with the requests it is serving.
    static func eval(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) throws(APIError)
        -> HTTPResponse
    {
        var fields = try RequestBody.fields(request)
        let expression = (try? fields.string("expr", maxLength: 65_536)) ?? ""
        let input = fields.member("input") ?? .null
        fields.renamed("now", to: "evaluated_at")
        let now = time(&fields, "evaluated_at", default: service.configuration.clock())
        let budget = (try? fields.optionalInteger("timeout_ms", in: 1...5000)) ?? 1000
        let limit = (try? fields.optionalInteger("limit", in: 1...1000)) ?? 100
        try fields.check()
        let job = IsolatedEvaluation.Job(
            expression: expression, input: input, now: now, budgetMilliseconds: budget, limit: limit,
            libraryDirectory: service.generation.ruleSet.libraryDirectory)
        return IsolatedEvaluation.run(job, executable: service.configuration.resolvedExecutable)
    }

    /// A time field: an RFC 3339 string with an offset, or seconds since 1970.
    private static func time(_ fields: inout FieldReader, _ name: String, default value: Double) -> Double {
        switch fields.value(name) {
        case nil: return value
        case .number(let seconds)?: return seconds
        case .string(let text)?:
            if let parsed = Timestamp.parse(text) { return parsed }
            fields.fail(name, .invalid, "must be a date-time with an offset, like 2026-11-29T12:00:00Z")
            return value
        case let other?:
            fields.fail(name, .wrongType, "must be a date-time string or seconds since 1970, got \(other.typeName)")
            return value
        }
    }
}
