import Core
import Engine
import FeatureKit
import Foundation
import HTTP
import JQ
import RuleEngine
import Store

/// One worker's engine behind the HTTP API: the store, the rules being served, the routes.
///
/// Every request runs on the one request thread, wholly on the rule generation it started
/// with; a newer generation (loaded by the worker's control thread, or by the admin reload)
/// is adopted between requests. Not `Sendable`: it owns libjq states and an SQLite connection
/// used by that thread only.
public final class JourneyService {
    public let configuration: ServiceConfiguration
    /// The admin credentials, read once from the configuration.
    let adminCredentials: AdminCredentials?
    /// Who may call each route: the credentials and the token verifier.
    let routeGuard: RouteGuard
    /// Each user's requests and events per second, shared by the workers.
    let rateLimits: UserRateLimits
    /// Who the request being answered comes from (nil on an open route, or without tokens); the
    /// access log names them.
    public internal(set) var principal: Principal?
    /// The worker's store (its own connection).
    let database: any StoreConnection
    let control: ControlBlock
    let slot: WorkerSlot
    let metrics: ServiceMetrics
    let reloader: RuleReloader
    let status: ServiceStatus
    let accessLog: AccessLog?
    let workerName: String
    /// Generations loaded elsewhere, waiting for the next request.
    let handOff = GenerationHandOff()
    /// Quarantine records made on this thread, for the control thread to store.
    let quarantineOutbox: QuarantineOutbox
    /// The admin reload's way to the control thread.
    let reloads = ReloadCoordinator()

    private(set) var generation: RulesGeneration
    private var quarantineSeen: UInt64 = .max
    var quarantine: [QuarantineRecord] = []
    var viewCache = ViewCache()
    /// The request being answered (for quarantine details).
    var currentRequest = ""
    /// When the request being answered started.
    var requestStarted = ContinuousClock.now
    /// Whether `POST /v1/events` defers its batch to the next group commit (a worker under
    /// libmicrohttpd, which calls ``flushIngests()``); a service driven directly answers at once.
    public internal(set) var groupsCommits = false
    /// Batches deferred since the last group commit, in arrival order.
    var pendingIngests: [PendingIngest] = []
    private var externalVersionRead: (Int64, ContinuousClock.Instant)?
    /// The standby views may read from (`--read-url`), nil without one.
    let readReplica: ReadReplica?
    /// The view being answered (with a standby).
    var viewRead: ViewRead?
    /// The primary's WAL position when this worker adopted the revision it serves (read on
    /// the first view after it): a standby behind it may hold an older revision's data.
    var revisionFloor: UInt64?

    /// The engine's routes and those of the configuration's features.
    let router: Router<JourneyService>
    /// The OpenAPI document of `router`, put together on first use.
    lazy var openAPIDocument = Operations.openAPIDocument(features: configuration.features)
    /// Route names by index, for metrics.
    public var routeNames: [String] { router.routes.map(\.name) }
    /// The names of the routes a service of `features` answers, in the order metrics count them.
    public static func routeNames(features: FeatureSet) -> [String] {
        makeRouter(features: features).routes.map(\.name)
    }

    init(
        configuration: ServiceConfiguration, store: any StoreConnection, control: ControlBlock, workerIndex: Int,
        generation: RulesGeneration, reloader: RuleReloader, status: ServiceStatus, accessLog: AccessLog?,
        quarantineOutbox: QuarantineOutbox
    ) {
        self.configuration = configuration
        self.router = Self.makeRouter(features: configuration.features)
        let credentials = configuration.adminCredentials
        self.adminCredentials = credentials
        self.routeGuard = RouteGuard(
            credentials: credentials, verifier: configuration.tokenVerifier,
            clock: configuration.clock)
        self.rateLimits = UserRateLimits(configuration: configuration, control: control)
        self.database = store
        self.control = control
        self.slot = control.slot(workerIndex)
        self.metrics = ServiceMetrics(block: control)
        self.reloader = reloader
        self.status = status
        self.accessLog = accessLog
        self.workerName = "w\(workerIndex)"
        self.quarantineOutbox = quarantineOutbox
        self.generation = generation
        self.readReplica = configuration.readURL.map { url in
            ReadReplica(url: url, schema: configuration.features.schema) { [workerName = "w\(workerIndex)"] line in
                logLine("journey serve: \(workerName): \(line)")
            }
        }
        adopt(generation)
    }

    /// The revision served now.
    public var revision: String { generation.ruleSet.revision }

    /// Answers one request (the libmicrohttpd adapter's handler).
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        requestStarted = started
        // Deferred batches are written on the generation they were admitted with.
        if pendingIngests.isEmpty, let newer = handOff.take() { adopt(newer) }
        refreshQuarantine()
        currentRequest = "\(request.method) \(request.path)"
        principal = nil
        generation.evaluator.inputKey = nil
        slot.beginRequest(currentRequest, digest: Self.requestDigest(request))
        beginViewRead(request)
        var (route, response) = router.handle(request, in: self)
        if viewRead != nil { (route, response) = finishViewRead(request, (route, response)) }
        // A rule set aside while answering is recorded now, outside any transaction, before the
        // worker can take another request (or end).
        if quarantineOutbox.hasRecords { storeQuarantine() }
        // A deferred request is counted and logged when its group commit answers it.
        if response.isDeferred {
            pendingIngests[pendingIngests.count - 1].route = route
            return response
        }
        if readReplica != nil { recordWriteFloors(request, route: route) }
        record(request, route: route, response: response, started: started, principal: principal)
        return response
    }

    /// Counts and logs an answered request.
    func record(
        _ request: HTTPRequest, route: Router<JourneyService>.Route?, response: HTTPResponse,
        started: ContinuousClock.Instant, principal: Principal?
    ) {
        let seconds = (ContinuousClock.now - started).seconds
        metrics.recordRequest(
            route: route?.index ?? ServiceMetrics.unmatchedRoute, status: response.status, seconds: seconds)
        slot.countRequest()
        accessLog?.record(
            request: request, route: route?.name, status: response.status, seconds: seconds,
            bytesOut: response.body.count, revision: generation.ruleSet.shortRevision, worker: workerName,
            principal: principal)
    }

    /// Ingests `events` through the one ingest path and tells every worker which dogs changed
    /// (their cached views are then recomputed).
    public func ingest(_ events: [JSON]) -> [IngestResult] {
        let results = generation.ingestor.ingest(events)
        if readReplica != nil { recordWriteFloors(events: events, results: results) }
        for (event, result) in zip(events, results) where result.status == .accepted {
            if let dog = event["dog_id"]?.stringValue { control.dogChanged(dog) }
        }
        if let failed = results.first(where: { $0.code == Rejection.Code.storageError.rawValue }) {
            lastWriteFailure = (ContinuousClock.now, failed.message ?? "")
        } else if results.contains(where: { $0.status == .accepted }) {
            lastWriteFailure = nil
        }
        return results
    }

    /// When the store last refused a write and why; cleared by the next accepted event.
    /// Readiness answers 503 for ``writeFailureSeconds`` after it.
    var lastWriteFailure: (at: ContinuousClock.Instant, message: String)?
    static let writeFailureSeconds = 10.0

    // MARK: Generations

    /// Serves `newer` from now on: unchanged rules keep their compiled programs (taken over
    /// from the generation served until now), changed ones are compiled here.
    func adopt(_ newer: RulesGeneration) {
        if newer !== generation { newer.evaluator.adoptPrograms(from: generation.evaluator) }
        generation = newer
        newer.evaluator.observer = self
        quarantineSeen = .max
        refreshQuarantine()
        slot.setServing(newer.ruleSet.revision)
        status.serving(newer.ruleSet, snapshot: newer.snapshot)
        viewCache.removeAll()
        revisionFloor = nil
    }

    /// Reloads the live files and serves them when they pass (the admin reload). A running
    /// worker's control thread does the load (with its program cache) and every other worker
    /// reloads too; without a control thread (a service driven directly) it loads here.
    func reloadNow(trigger: String) -> ReloadReport {
        if reloads.isActive {
            let target = control.requestReload()
            if let report = reloads.wait(for: target, timeout: 120) {
                if pendingIngests.isEmpty, let newer = handOff.take() { adopt(newer) }
                return report
            }
            return ReloadReport(
                outcome: .refused, trigger: trigger, revision: nil, at: configuration.clock(), seconds: 120,
                message: "the reload did not finish within 120 s")
        }
        let (loaded, report) = reloader.loadServed(
            source: configuration.rulesSource, trigger: trigger, serving: generation.ruleSet.revision,
            reader: database, store: database)
        if let loaded { adopt(loaded) }
        status.record(report, slot: slot)
        if report.outcome == .loaded { control.requestReload() }
        return report
    }

    // MARK: Quarantine

    /// Re-reads the quarantine when it changed (here or in another worker).
    func refreshQuarantine() {
        let seen = control.quarantineGeneration
        guard seen != quarantineSeen else { return }
        quarantineSeen = seen
        let records = (try? database.quarantineRecords()) ?? quarantine
        let ruleSet = generation.ruleSet
        // A record applies while the rule is what ran away: same id, same digest.
        quarantine = records.filter { ruleSet.digest(of: $0.ruleID) == $0.ruleDigest }
        applyQuarantine(quarantine + quarantineOutbox.pending.filter { ruleSet.digest(of: $0.ruleID) == $0.ruleDigest })
        status.quarantined(
            quarantine + quarantineOutbox.pending.filter { ruleSet.digest(of: $0.ruleID) == $0.ruleDigest })
        viewCache.removeAll()
    }

    /// Sets the evaluator's quarantine to `records` (all of the rule set served): a record with
    /// an input key sets the rule aside for that input only.
    func applyQuarantine(_ records: [QuarantineRecord]) {
        var everyone: Set<String> = []
        var inputs: [String: Set<String>] = [:]
        for record in records {
            if let key = record.inputKey {
                inputs[record.ruleID, default: []].insert(key)
            } else {
                everyone.insert(record.ruleID)
            }
        }
        generation.evaluator.quarantined = everyone
        generation.evaluator.quarantinedInputs = inputs
    }

    /// Stores the quarantine records made on this thread and tells the other workers.
    func storeQuarantine() {
        let records = quarantineOutbox.drain()
        var failed: [QuarantineRecord] = []
        for record in records {
            do {
                try database.quarantine(record)
                logLine(
                    "journey serve: \(workerName): quarantined rule `\(record.ruleID)`\(record.scopeText): \(record.detail)"
                )
            } catch {
                failed.append(record)
            }
        }
        quarantineOutbox.restore(failed)
        if failed.count < records.count {
            control.quarantineChanged()
            quarantineSeen = control.quarantineGeneration &- 1
        }
    }

    /// FNV-1a (64-bit) of the request's method, target and body: cheap enough for every request,
    /// kept in the worker's slot so that a crash can name the request that caused it.
    static func requestDigest(_ request: HTTPRequest) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        mix(request.method.utf8)
        mix(request.path.utf8)
        for (name, value) in request.query {
            mix(name.utf8)
            mix(value.utf8)
        }
        mix(request.body)
        return hash
    }

    /// The store's external version, read at most every 50 ms: a commit by another process
    /// (writes through the service bump the dog counters at once) shows within that time.
    func externalVersion() throws -> Int64 {
        let now = ContinuousClock.now
        if let (value, at) = externalVersionRead, now - at < .milliseconds(50) { return value }
        let value = try database.externalVersion()
        externalVersionRead = (value, now)
        return value
    }

}

extension JourneyService: EvaluationObserver {
    public func willEvaluate(_ rule: RuleDefinition, variant: String) {
        slot.beginEvaluation(rule: rule.id, digest: generation.ruleSet.digest(of: rule.id) ?? "")
    }

    public func didEvaluate(_ rule: RuleDefinition, variant: String, input: JV, duration: Duration, error: RuleError?) {
        slot.endEvaluation()
        let (seconds, attoseconds) = duration.components
        metrics.recordEvaluation(
            rule: rule.id,
            nanoseconds: UInt64(max(seconds, 0)) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000),
            failed: error != nil, timedOut: error?.code == .timeout, fallback: variant == RuleError.fallbackName)
        let evaluator = generation.evaluator
        guard error?.code == .timeout, variant != RuleError.fallbackName,
            evaluator.quarantineScope(of: rule, input: input) == nil
        else { return }
        // It ran past its budget on this input and was halted: set it aside for this input (the
        // request's dog or user) until it changes; everyone else keeps the rule.
        let text = (try? input.json())?.compactText ?? ""
        let key = evaluator.quarantineKey(of: input)
        let record = QuarantineRecord(
            ruleID: rule.id, ruleDigest: generation.ruleSet.digest(of: rule.id) ?? "", reason: "timeout",
            inputDigest: "sha256:" + SHA256.hex(text), inputKey: key,
            detail:
                "ran past its \(DurationText.format(rule.budget)) budget (variant \(variant)) on input `\(key)` answering \(currentRequest)",
            quarantinedAt: configuration.clock())
        evaluator.quarantinedInputs[rule.id, default: []].insert(key)
        quarantineOutbox.add(record)
        status.quarantined(
            quarantine + quarantineOutbox.pending.filter { generation.ruleSet.digest(of: $0.ruleID) == $0.ruleDigest })
        viewCache.removeAll()
    }
}

/// Quarantine records made on the request thread, stored by the control thread (which has a
/// connection of its own: the request thread may be inside a write transaction).
///
/// `@unchecked Sendable`: `records` is guarded by `lock`.
final class QuarantineOutbox: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [QuarantineRecord] = []

    func add(_ record: QuarantineRecord) {
        lock.lock()
        records.append(record)
        lock.unlock()
    }

    var hasRecords: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !records.isEmpty
    }

    /// Records not stored yet.
    var pending: [QuarantineRecord] {
        lock.lock()
        defer { lock.unlock() }
        return records
    }

    /// Takes the records out to store them.
    func drain() -> [QuarantineRecord] {
        lock.lock()
        defer { lock.unlock() }
        let taken = records
        records = []
        return taken
    }

    /// Puts back records that could not be stored.
    func restore(_ failed: [QuarantineRecord]) {
        lock.lock()
        records = failed + records
        lock.unlock()
    }
}

/// What `GET /v1/rules` tells, shared by the request and control threads.
///
/// `@unchecked Sendable`: every field is guarded by `lock`.
final class ServiceStatus: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var lastReport: ReloadReport?
    private(set) var revision = ""
    private(set) var loadedAt = 0.0
    private(set) var ruleSummaries: [JSON] = []
    private(set) var quarantine: [QuarantineRecord] = []
    private var served: RuleSet?

    /// The rule set served (for the control thread's periodic jobs).
    var ruleSet: RuleSet? {
        lock.lock()
        defer { lock.unlock() }
        return served
    }

    /// Keeps `report` as the last reload. An `unchanged` one only counts after a refusal (the
    /// files are back to the revision served, which is healthy again).
    func record(_ report: ReloadReport, slot: WorkerSlot?) {
        lock.lock()
        let counts = report.outcome != .unchanged || lastReport == nil || lastReport?.outcome == .refused
        if counts { lastReport = report }
        lock.unlock()
        if counts { slot?.recordReload(at: report.at, succeeded: report.succeeded) }
    }

    func serving(_ ruleSet: RuleSet, snapshot: RuleSnapshots.Snapshot) {
        let summaries: [JSON] = ruleSet.rules.map { rule in
            [
                "id": .string(rule.id), "kind": .string(rule.kind.name),
                "file": .string(rule.location.file), "line": .number(Double(rule.location.line)),
                "experiment": rule.experiment.map(JSON.string) ?? .null,
                "variant_names": .array(rule.variants.map { .string($0.name) }),
                "has_fallback": .bool(rule.fallback != nil), "test_count": .number(Double(rule.tests.count)),
                "budget_ms": .number(
                    Double(rule.budget.components.seconds * 1000)
                        + Double(rule.budget.components.attoseconds / 1_000_000_000_000_000)),
            ]
        }
        lock.lock()
        revision = ruleSet.revision
        loadedAt = ruleSet.loadedAt
        ruleSummaries = summaries
        served = ruleSet
        lock.unlock()
    }

    func quarantined(_ records: [QuarantineRecord]) {
        lock.lock()
        quarantine = records
        lock.unlock()
    }

    func snapshot() -> (
        report: ReloadReport?, revision: String, loadedAt: Double, rules: [JSON], quarantine: [QuarantineRecord]
    ) {
        lock.lock()
        defer { lock.unlock() }
        return (lastReport, revision, loadedAt, ruleSummaries, quarantine)
    }
}

extension JourneyService: ServiceContext {
    /// The worker's store; for a view with `--read-url`, the standby when it may answer.
    public var store: any Store { viewRead == nil ? database : viewConnection() }
    public var features: FeatureSet { configuration.features }
    public func adminName(of request: HTTPRequest) -> String {
        if case .service(let name, _)? = principal { return name }
        return AdminCredentials.defaultName
    }
    public func adminRefusal(_ request: HTTPRequest) -> APIError? {
        if principal?.adminRole != nil { return nil }
        if case .failure(let refusal) = routeGuard.admit(
            request, access: .service(.admin), parameters: [:], store: database)
        {
            return refusal
        }
        return nil
    }
    public var ruleSet: RuleSet { generation.ruleSet }
    public var evaluator: RuleEvaluator { generation.evaluator }
    public func now() -> Double { configuration.clock() }
    public var servedFolders: ServedFolders? {
        configuration.rulesSource == .store
            ? nil
            : ServedFolders(rules: configuration.rulesDirectory, plugins: configuration.pluginsDirectory)
    }
    public func status(ofRejection code: String?) -> Int { configuration.features.status(ofRejection: code) }
    public func runIsolated(_ name: String, input: JSON, timeout: Duration, progress: (JSON) -> Void)
        -> IsolatedOutcome
    {
        ChildProcess.run(
            executable: configuration.resolvedExecutable,
            arguments: [
                "serve", "--isolated-job", name, "--stuck-grace", DurationText.format(configuration.stuckGrace),
            ],
            input: input, limits: ChildProcess.Limits(cpu: nil, wall: timeout), progress: progress)
    }
}
