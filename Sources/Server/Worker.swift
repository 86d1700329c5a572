import CSupport
import Core
import FeatureKit
import Foundation
import HTTP
import JQ
import RevisionStore
import RuleEngine
import Store
import StoreBackends

#if canImport(Glibc)
    import Glibc
#endif

/// One worker process of the service: loads the rules, serves requests on libmicrohttpd's
/// polling thread, and on its own (main) thread watches the rule files, signals and the
/// control block, stores quarantine records and flushes the access log.
public enum Worker {
    /// Exit code of a worker whose rules cannot load and that has no last good revision.
    public static let configurationExitCode: Int32 = 78
    /// Exit code of a worker that ended itself because an evaluation could not be stopped.
    public static let stuckExitCode: Int32 = 70

    /// Runs worker `index` on `socket` until SIGTERM/SIGINT or the service shuts down
    /// (`supervised`: a process the supervisor started, `lifeline` the descriptor of its
    /// ``Lifeline``). Returns the process exit code.
    public static func run(
        configuration: ServiceConfiguration, index: Int, socket: ListeningSocket, control: ControlBlock,
        supervised: Bool = true, lifeline: Int32? = nil
    ) -> Int32 {
        SignalReader.block([SIGTERM, SIGINT, SIGHUP])
        // A worker outlives no supervisor: it dies with it, at once.
        if supervised, !Lifeline.bindToSupervisor(lifeline) {
            logLine("journey serve: w\(index): the supervisor is gone; not starting")
            return 1
        }
        let slot = control.slot(index)
        slot.reset(pid: getpid())
        if configuration.workerMemoryBytes > 0 {
            var limit = rlimit(
                rlim_cur: rlim_t(configuration.workerMemoryBytes), rlim_max: rlim_t(configuration.workerMemoryBytes))
            setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        }
        let name = "w\(index)"
        do {
            let service = try open(configuration: configuration, control: control, index: index)
            // Last resort: an evaluation that does not stop when halted (one long C builtin) ends
            // the process; the slot still names the rule, which the supervisor quarantines.
            EvaluationGuard.onStuck(grace: configuration.stuckGrace) { stuck in
                logLine(
                    "journey serve: \(name): rule `\(stuck.name)` is still running \(String(format: "%.1f", stuck.overrun)) s past its budget after it was halted; ending the worker"
                )
                _exit(stuckExitCode)
            }
            return try serve(service, socket: socket, name: name, lifeline: supervised ? lifeline : nil)
        } catch let error as StartupRefusal {
            logLine(error.text)
            return configurationExitCode
        } catch {
            logLine("journey serve: \(name): \(error)")
            return 1
        }
    }

    /// The service of worker `index` with its rules loaded: the live files when they pass,
    /// else the last good revision.
    public static func open(configuration: ServiceConfiguration, control: ControlBlock, index: Int) throws
        -> JourneyService
    {
        let store = try configuration.storeLocation().open(schema: configuration.features.schema)
        let snapshots = RuleSnapshots(
            rulesDirectory: configuration.rulesDirectory, pluginsDirectory: configuration.pluginsDirectory,
            stateDirectory: configuration.resolvedStateDirectory)
        try snapshots.prepare()
        let slot = control.slot(index)
        let reloader = RuleReloader(
            features: configuration.features, snapshots: snapshots, slot: slot, clock: configuration.clock)
        let status = ServiceStatus()
        if index == 0 {
            try store.setRevisionSetting(requiredApprovalsSetting, String(configuration.requiredApprovals))
        }
        if configuration.rulesSource == .store, (try? store.activeRevision()) == nil {
            throw StartupRefusal(
                text:
                    "journey serve: w\(index): no revision is published in \(configuration.storeDescription) (--rules-from store); publish one first: journey publish --db \(configuration.storeDescription) --message TEXT"
            )
        }
        var (generation, report) = reloader.loadServed(
            source: configuration.rulesSource, trigger: RuleReloader.startupTrigger, serving: nil, reader: store,
            store: store)
        if generation == nil {
            var text = "journey serve: w\(index): the rules were refused: \(report.message)"
            for diagnostic in report.diagnostics { text += "\n" + diagnostic.description }
            for test in report.failedTests {
                text += "\n\(test.location): test failed: \(test.fullName): \(test.message ?? "")"
            }
            guard
                let (lastGood, lastReport) = reloader.loadLastGood(trigger: RuleReloader.startupTrigger, store: store),
                let lastGood
            else {
                throw StartupRefusal(
                    text: text + "\nno earlier good revision to serve instead; fix the rules and start again")
            }
            if index == 0 {
                logLine(text + "\nserving the last good revision \(lastGood.ruleSet.shortRevision) instead")
            }
            status.record(lastReport, slot: slot)
            generation = lastGood
        }
        status.record(report, slot: slot)
        let accessLog = try configuration.accessLog.map { try AccessLog(destination: $0) }
        return JourneyService(
            configuration: configuration, store: store, control: control, workerIndex: index, generation: generation!,
            reloader: reloader, status: status, accessLog: accessLog, quarantineOutbox: QuarantineOutbox())
    }

    /// `wanted`, or fewer when `ulimit -n` (raised to its hard limit first) leaves too few open
    /// files for them beside the store's and the rules' (said once, by the first worker).
    static func connectionLimit(_ wanted: Int, name: String) -> Int {
        let files = OpenFileLimit.raiseToHardLimit()
        let reserved = 256
        guard wanted + reserved > files else { return wanted }
        let limit = max(16, files - reserved)
        if name == "w0" {
            logLine(
                "journey serve: \(name): at most \(limit) connections per worker instead of \(wanted): only \(files) open files are allowed (ulimit -n)"
            )
        }
        return limit
    }

    /// The idle connections a worker of `limit` connections holds: `wanted` (nil: 15/16 of
    /// the limit), kept below the limit so that the worker always accepts; 0 stays 0 (no bound).
    static func idleConnectionLimit(_ wanted: Int?, of limit: Int) -> Int {
        let most = max(1, limit - max(1, limit / 32))
        guard let wanted else { return max(1, limit - max(1, limit / 16)) }
        return wanted == 0 ? 0 : min(wanted, most)
    }

    private static func serve(_ service: JourneyService, socket: ListeningSocket, name: String, lifeline: Int32?)
        throws -> Int32
    {
        let configuration = service.configuration
        let control = service.control
        let slot = service.slot
        var options = HTTPServer.Options()
        options.maxBodyBytes = configuration.maxBodyBytes
        options.connectionTimeoutSeconds = configuration.connectionTimeoutSeconds
        options.connectionLimit = connectionLimit(configuration.connectionLimit, name: name)
        options.idleConnectionLimit = idleConnectionLimit(
            configuration.idleConnectionLimit, of: options.connectionLimit)
        options.perAddressConnectionLimit = configuration.perAddressConnectionLimit
        options.headerTimeout = configuration.headerTimeout
        options.bodyTimeout = configuration.bodyTimeout
        options.requestIDPrefix = name
        service.groupsCommits = true
        let server = try HTTPServer(
            socket: socket, options: options, handler: service.handle, flush: service.flushIngests)
        let signals = try SignalReader([SIGTERM, SIGINT, SIGHUP])
        let watcher =
            configuration.watchFiles
            ? try FileWatcher(
                roots: [configuration.rulesDirectory] + (configuration.pluginsDirectory.map { [$0] } ?? []))
            : nil
        let quarantineStore = try configuration.storeLocation().open(
            schema: configuration.features.schema, migrate: false)
        slot.isReady = true

        var seenReload = control.reloadGeneration
        var changedAt: ContinuousClock.Instant?
        // This thread does every reload from now on, compiling only the rules that changed since
        // the last one (the first compiles every rule: compiling them at startup, besides the
        // served ones, doubled a worker's start and kept this loop from signals and flushes).
        let cache = ProgramCache()
        service.reloads.isActive = true
        defer { service.reloads.isActive = false }
        @discardableResult
        func reload(_ trigger: String) -> ReloadReport {
            // Read on this thread's own connection: the request thread owns `service.database`.
            let (generation, report) = service.reloader.loadServed(
                source: configuration.rulesSource, trigger: trigger, serving: slot.serving, reader: quarantineStore,
                store: service.database, cache: cache)
            if let generation { service.handOff.put(generation) }
            // The files are what is served: a generation still waiting is out of date.
            if report.outcome == .unchanged { _ = service.handOff.take() }
            service.status.record(report, slot: slot)
            // One worker tells the log (they all load the same files).
            if report.outcome != .unchanged, name == "w0" {
                var text = "journey serve: reload (\(trigger)): \(report.message)"
                for diagnostic in report.diagnostics where diagnostic.severity == .error {
                    text += "\n" + diagnostic.description
                }
                logLine(text)
            }
            return report
        }

        // The first worker runs the features' periodic jobs (each is idempotent).
        let jobs = configuration.runJobs && name == "w0" ? configuration.features.jobs : []
        var jobsRunAt: [ContinuousClock.Instant?] = jobs.map { _ in nil }
        func runDueJobs() {
            for (index, job) in jobs.enumerated() where jobsRunAt[index].map({ .now - $0 >= job.every }) ?? true {
                jobsRunAt[index] = .now
                guard let ruleSet = service.status.ruleSet else { continue }
                do {
                    if let line = try job.run(quarantineStore, ruleSet, configuration.clock()) {
                        logLine("journey serve: \(job.name): \(line)")
                    }
                } catch {
                    logLine("journey serve: \(job.name) failed (tried again in \(job.every)): \(error)")
                }
            }
        }

        // Activations made by any process on this store: announced where the store can
        // (PostgreSQL's NOTIFY, lost while disconnected), and seen within one poll in any case.
        var polledAt = ContinuousClock.now
        var refusedRevision: String?
        let listening =
            configuration.rulesSource != .folder && (try? quarantineStore.listen(ruleActivationsChannel)) != nil
        // Scheduled activations: the next one is read at each poll and loaded (tested) ahead of
        // its time; when it falls due every worker tries to take it (one wins), and each swaps
        // in what it prepared at once instead of loading it then.
        var nextDue: RevisionSchedule?
        var prepared: (revision: String, generation: RulesGeneration, report: ReloadReport)?
        // The revision last prepared, loaded or refused: it is not loaded again at every poll.
        var preparedFor: String?
        func followActivations() {
            let announced = listening && quarantineStore.drainNotifications() > 0
            let due = nextDue.map { configuration.clock() >= $0.dueAt } ?? false
            guard configuration.rulesSource != .folder,
                due || announced || ContinuousClock.now - polledAt >= configuration.activationPoll
            else { return }
            polledAt = .now
            if due {
                do {
                    try quarantineStore.activateDueSchedules(now: configuration.clock())
                } catch {
                    logLine(
                        "journey serve: \(name): a scheduled activation failed (tried again at the next poll): \(error)"
                    )
                }
            }
            switchToActive()
            nextDue = (try? quarantineStore.revisionSchedules(limit: 1))?.first
            if let next = nextDue, next.revision != slot.serving, preparedFor != next.revision {
                preparedFor = next.revision
                let (generation, report) = service.reloader.prepare(
                    revision: next.revision, reader: quarantineStore, store: service.database, cache: cache)
                prepared = generation.map { (next.revision, $0, report) }
                if generation == nil, name == "w0" {
                    logLine("journey serve: the revision scheduled next does not load: \(report.message)")
                }
            }
        }
        // The revision handed to the request thread last: it serves it from its next request on
        // (until then the slot names the one before, and must not make this thread load it again).
        var handedOff: String?
        func switchToActive() {
            guard let active = try? quarantineStore.activeRevision()?.revision, active != slot.serving,
                active != handedOff, active != refusedRevision
            else { return }
            if let ready = prepared, ready.revision == active {
                prepared = nil
                handedOff = active
                service.handOff.put(ready.generation)
                service.status.record(ready.report, slot: slot)
                if name == "w0" { logLine("journey serve: scheduled activation: \(ready.report.message)") }
                return
            }
            let report = reload("revision activated")
            refusedRevision = report.outcome == .refused ? active : nil
            if report.succeeded { handedOff = active }
        }

        while true {
            let store = listening ? quarantineStore.notificationDescriptor : nil
            SignalReader.wait(
                [signals.descriptor] + (watcher.map { [$0.descriptor] } ?? []) + (store.map { [$0] } ?? []),
                milliseconds: 50)
            var stop = false
            for signal in signals.drain() {
                if signal == SIGHUP { reload("SIGHUP") } else { stop = true }
            }
            // The kernel kills a worker whose supervisor died; should that not happen, it stops.
            if let lifeline, Lifeline.isCut(lifeline) {
                logLine("journey serve: \(name): the supervisor is gone; stopping")
                stop = true
            }
            if stop || control.load(.shuttingDown) != 0 { break }
            if let watcher, watcher.drain() { changedAt = .now }
            if let changed = changedAt, ContinuousClock.now - changed >= configuration.reloadDebounce {
                changedAt = nil
                reload("files changed")
            }
            let generation = control.reloadGeneration
            if generation != seenReload {
                seenReload = generation
                service.reloads.finished(generation: generation, report: reload("reload requested"))
            }
            followActivations()
            slot.recordConnections(
                open: server.openConnections, pastDeadline: server.connectionsPastDeadline, shed: server.connectionsShed
            )
            storeQuarantine(service.quarantineOutbox, in: quarantineStore, control: control, worker: name)
            service.accessLog?.flush()
            runDueJobs()
        }
        slot.isReady = false
        // What is logged so far is written before the wait for requests in progress: should the
        // supervisor's patience run out during that wait, only their lines are lost.
        service.accessLog?.flush()
        server.stop(grace: configuration.shutdownGrace)
        storeQuarantine(service.quarantineOutbox, in: quarantineStore, control: control, worker: name)
        service.accessLog?.flush()
        return 0
    }

    private static func storeQuarantine(
        _ outbox: QuarantineOutbox, in store: any Store, control: ControlBlock, worker: String
    ) {
        let records = outbox.drain()
        guard !records.isEmpty else { return }
        var failed: [QuarantineRecord] = []
        for record in records {
            do {
                try store.quarantine(record)
                try? store.appendAudit(
                    AuditEntry(
                        at: record.quarantinedAt, actor: "service (\(worker))", action: "quarantine",
                        subject: record.ruleID,
                        message: record.reason,
                        detail: [
                            "detail": .string(record.detail), "rule_digest": .string(record.ruleDigest),
                            "input": record.inputKey.map(JSON.string) ?? .null,
                        ]))
                logLine(
                    "journey serve: \(worker): quarantined rule `\(record.ruleID)`\(record.scopeText): \(record.detail)"
                )
            } catch {
                failed.append(record)
            }
        }
        outbox.restore(failed)
        control.quarantineChanged()
    }
}

/// The rules cannot be served: nothing loads and there is no last good revision.
struct StartupRefusal: Error {
    var text: String
}
