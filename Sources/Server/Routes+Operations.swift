import FeatureKit
import Foundation
import HTTP
import JQ
import Store

/// `/healthz`, `/readyz`, `/metrics`, `/openapi.json`.
enum Operations {
    static func health(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) -> HTTPResponse {
        .json(["status": "ok", "worker": .string(service.workerName), "pid": .number(Double(getpid()))])
    }

    /// Ready when rules are loaded, the store answers and has not refused a write in the last
    /// 10 s (a full disk: no accepted event since).
    static func ready(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) -> HTTPResponse {
        do {
            try service.database.ping()
        } catch {
            return .error(503, code: "store_unavailable", message: "the store does not answer: \(error)")
        }
        if let failure = service.lastWriteFailure,
            (ContinuousClock.now - failure.at).seconds < JourneyService.writeFailureSeconds
        {
            return .error(
                503, code: "store_not_writable",
                message:
                    "the store refused a write \(String(format: "%.1f", (ContinuousClock.now - failure.at).seconds)) s ago: \(failure.message)",
                headers: [("Retry-After", "1")])
        }
        return .json([
            "status": "ready", "revision": .string(service.revision), "worker": .string(service.workerName),
        ])
    }

    static func metrics(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) -> HTTPResponse {
        let control = service.control
        let workers = max(Int(control.load(.workers)), 1)
        var latest: (at: Double, succeeded: Bool)?
        var extra: [PrometheusSample] = []
        for index in 0..<min(workers, ControlBlock.maxWorkers) {
            let slot = control.slot(index)
            if let reload = slot.lastReload, reload.at > (latest?.at ?? -1) { latest = reload }
        }
        let state = service.status.snapshot()
        extra.append(
            PrometheusSample(
                "journey_rules_last_reload_successful",
                help: "Whether the last rules reload succeeded (1) or was refused (0).",
                value: (latest?.succeeded ?? true) ? 1 : 0))
        extra.append(
            PrometheusSample(
                "journey_rules_last_reload_timestamp_seconds", help: "When rules were last (re)loaded or refused.",
                value: latest?.at ?? state.loadedAt))
        extra.append(
            PrometheusSample(
                "journey_rules_info", help: "The rule revision served (by this worker).",
                labels: [("revision", state.revision)], value: 1))
        extra.append(
            PrometheusSample(
                "journey_rules_quarantined", help: "Rules answering with their fallback after running away.",
                value: Double(Set(state.quarantine.map(\.ruleID)).count)))
        for rule in Set(state.quarantine.map(\.ruleID)).sorted() {
            let records = state.quarantine.filter { $0.ruleID == rule }
            extra.append(
                PrometheusSample(
                    "journey_rule_quarantined", help: "1 for each quarantined rule (for everyone or for some inputs).",
                    labels: [("rule", rule)], value: 1))
            extra.append(
                PrometheusSample(
                    "journey_rule_quarantined_inputs",
                    help: "The inputs (dogs, users) a rule is quarantined for; 0 when it is for everyone.",
                    labels: [("rule", rule)],
                    value: records.contains { $0.inputKey == nil }
                        ? 0 : Double(Set(records.compactMap(\.inputKey)).count)))
        }
        extra.append(
            PrometheusSample(
                "journey_worker_restarts_total", help: "Workers restarted after they ended or crashed.",
                type: "counter",
                value: Double(control.workerRestarts)))
        extra.append(PrometheusSample("journey_workers", help: "Worker processes configured.", value: Double(workers)))
        let commits = control.eventCommits
        extra.append(
            PrometheusSample(
                "journey_event_commits_total", help: "Transactions that stored POST /v1/events batches.",
                type: "counter", value: Double(commits.commits)))
        extra.append(
            PrometheusSample(
                "journey_event_commit_requests_total",
                help: "POST /v1/events requests those transactions held (several share one: group commit).",
                type: "counter", value: Double(commits.requests)))
        for (source, label) in [
            (ControlBlock.ViewSource.standby, "standby"), (.primaryBehind, "primary_standby_behind"),
            (.primaryStandbyDown, "primary_standby_down"),
        ] {
            extra.append(
                PrometheusSample(
                    "journey_view_reads_total",
                    help:
                        "Views answered with --read-url, by the server read: the standby, or the primary (the standby had not replayed the view's floor, or failed).",
                    type: "counter", labels: [("source", label)], value: Double(control.views(source))))
        }
        for index in 0..<min(workers, ControlBlock.maxWorkers) {
            extra.append(
                PrometheusSample(
                    "journey_worker_requests_total", help: "Requests answered, by worker.", type: "counter",
                    labels: [("worker", "w\(index)")], value: Double(control.slot(index).requests)))
        }
        // One family after another (each is named once, with all its workers).
        let slots = (0..<min(workers, ControlBlock.maxWorkers)).map { control.slot($0) }
        func perWorker(_ name: String, help: String, type: String = "gauge", _ value: (WorkerSlot) -> Double) {
            for (index, slot) in slots.enumerated() {
                extra.append(
                    PrometheusSample(
                        name, help: help, type: type, labels: [("worker", "w\(index)")], value: value(slot)))
            }
        }
        perWorker("journey_http_connections_open", help: "Open connections (idle keep-alive ones included), by worker.")
        {
            Double($0.connections.open)
        }
        perWorker(
            "journey_http_connections_past_deadline_total",
            help: "Connections shut down for not sending a request's headers or body in time, by worker.",
            type: "counter"
        ) { Double($0.connections.pastDeadline) }
        perWorker(
            "journey_worker_testing_rules",
            help: "1 while the worker loads and tests a candidate rule set (at start or a reload), else 0."
        ) { $0.activity == .validating ? 1 : 0 }
        perWorker(
            "journey_http_connections_shed_total",
            help: "Idle connections shut down to make room for new ones (past the idle bound), by worker.",
            type: "counter"
        ) { Double($0.connections.shed) }
        perWorker(
            "journey_worker_consecutive_crashes",
            help: "Times in a row the worker died within 2 s of starting (0 once one lives on)."
        ) { Double($0.crashLoop.crashes) }
        perWorker(
            "journey_worker_restart_backoff_seconds",
            help: "How long the supervisor waits before restarting the worker (a crash loop, backed off)."
        ) { $0.crashLoop.backoffSeconds }
        let text = service.metrics.prometheusText(routeNames: service.routeNames, extra: extra)
        return .text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// The engine's part of the document and every feature's, put together once; or why they
    /// cannot be (a defect of the build, answered as 500 naming it).
    static func openAPIDocument(features: FeatureSet) -> Result<[UInt8], OpenAPIDocument.Failure> {
        Result { () throws(OpenAPIDocument.Failure) -> [UInt8] in
            let core = try OpenAPIDocument.part(
                at: Bundle.module.url(forResource: "openapi", withExtension: "json"), feature: "(the engine)")
            return Array(try features.openAPI(core: core).compactText.utf8)
        }
    }

    static func openAPI(_ service: JourneyService, _ request: HTTPRequest, _: RouteParameters) -> HTTPResponse {
        switch service.openAPIDocument {
        case .success(let body):
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body)
        case .failure(let failure):
            return APIError(500, "openapi_invalid", failure.description).response
        }
    }
}
