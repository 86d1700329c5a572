import CSupport
import Core
import Foundation
import HTTP
import RuleEngine
import Store
import StoreBackends

#if canImport(Glibc)
    import Glibc
#endif

/// The service's supervisor process: owns the listening socket, starts the worker processes
/// (which all accept from that socket), restarts any that ends or crashes, and never evaluates
/// a rule itself. Its workers die with it at once however it ends (see ``Lifeline``), so that a
/// process manager starting the service again finds the port free; if it is still held, the
/// new supervisor waits for it (`listenWait`).
///
/// When a worker dies while its slot says it was evaluating a rule (ended by the watchdog
/// because the evaluation could not be halted, or killed by the kernel — out of memory makes
/// libjq abort), the rule is quarantined for everyone (a budget overrun, halted in the worker,
/// is quarantined for its input only): it answers with its fallback until it changes. When
/// a candidate rule set's load or tests crash workers twice in a row (a crash signal, or an
/// evaluation that could not be stopped), that revision is marked poisoned; a worker killed
/// from outside while testing (SIGKILL, SIGTERM) is not held against the revision. A worker
/// that keeps dying right after it starts is restarted ever more slowly (up to 16 s), shown
/// in `/metrics`.
public final class Supervisor {
    let configuration: ServiceConfiguration
    /// How workers are started: this executable with `serve --worker-index N` and the
    /// configuration as flags.
    let workerArguments: (Int) -> [String]
    private var workers: [Int: (pid: pid_t, startedAt: ContinuousClock.Instant)] = [:]
    private var recentCrashes: [Int: Int] = [:]
    /// Crashes while testing each revision since it last passed (two in a row poison it).
    private var validationCrashes: [String: Int] = [:]
    /// How many crashes in a row poison a revision.
    static let crashesThatPoison = 2

    public init(configuration: ServiceConfiguration, workerArguments: @escaping (Int) -> [String]) {
        self.configuration = configuration
        self.workerArguments = workerArguments
    }

    /// Runs until SIGTERM or SIGINT; returns the exit code. `announce` gets the address once
    /// every worker is ready.
    public func run(announce: (String) -> Void) -> Int32 {
        SignalReader.block([SIGTERM, SIGINT, SIGHUP, SIGCHLD])
        let socket: ListeningSocket
        let control: ControlBlock
        let store: any StoreConnection
        let lifeline: Lifeline
        let snapshots = RuleSnapshots(
            rulesDirectory: configuration.rulesDirectory, pluginsDirectory: configuration.pluginsDirectory,
            stateDirectory: configuration.resolvedStateDirectory)
        do {
            store = try configuration.storeLocation().open(schema: configuration.features.schema)
            try snapshots.prepare()
            socket = try ListeningSocket.waitingForPort(
                host: configuration.host, port: configuration.port, wait: configuration.listenWait
            ) {
                logLine(
                    "journey serve: waiting for \(configuration.host):\(configuration.port): it is in use (an earlier service still stopping?); trying again for up to \(DurationText.format(configuration.listenWait))"
                )
            }
            control = try ControlBlock.create()
            lifeline = try Lifeline()
        } catch {
            logLine("journey serve: \(error)")
            return 1
        }
        defer { socket.close() }
        control.store(.workers, UInt64(configuration.workers))
        for index in 0..<configuration.workers {
            guard start(index, socket: socket, control: control, lifeline: lifeline) else {
                return shutdown(control, code: 1)
            }
        }
        // Wait until every worker serves, or one cannot load the rules.
        let deadline = ContinuousClock.now + .seconds(120)
        while (0..<configuration.workers).contains(where: { !control.slot($0).isReady }) {
            for (index, status) in reap() {
                if journey_wait_exited(status), journey_wait_exit_code(status) == Worker.configurationExitCode {
                    workers[index] = nil
                    return shutdown(control, code: Worker.configurationExitCode)
                }
                logLine("journey serve: worker w\(index) ended while starting (\(Self.describe(status)))")
                workers[index] = nil
                return shutdown(control, code: 1)
            }
            if ContinuousClock.now > deadline {
                logLine("journey serve: the workers did not become ready within 120 s")
                return shutdown(control, code: 1)
            }
            if isOrphaned { return shutdown(control, code: 1) }
            usleep(10_000)
        }
        announce("http://\(socket.host.contains(":") ? "[\(socket.host)]" : socket.host):\(socket.port)")

        let signals: SignalReader
        do {
            signals = try SignalReader([SIGTERM, SIGINT, SIGHUP, SIGCHLD])
        } catch {
            logLine("journey serve: \(error)")
            return shutdown(control, code: 1)
        }
        var pendingRestarts: [(index: Int, at: ContinuousClock.Instant)] = []
        while true {
            SignalReader.wait([signals.descriptor], milliseconds: 50)
            var stop = false
            for signal in signals.drain() {
                switch signal {
                case SIGHUP:
                    logLine("journey serve: SIGHUP: reloading the rules")
                    control.requestReload()
                case SIGTERM, SIGINT:
                    stop = true
                default:
                    break
                }
            }
            if stop || isOrphaned { return shutdown(control, code: 0) }
            for (index, status) in reap() {
                let delay = handleDeath(of: index, status: status, control: control, store: store, snapshots: snapshots)
                pendingRestarts.append((index, ContinuousClock.now + delay))
            }
            let now = ContinuousClock.now
            clearCrashLoops(control: control, now: now)
            for pending in pendingRestarts where pending.at <= now {
                if start(pending.index, socket: socket, control: control, lifeline: lifeline) {
                    control.increment(.workerRestarts)
                }
            }
            pendingRestarts.removeAll { $0.at <= now && workers[$0.index] != nil }
        }
    }

    /// Whether the process it was told to outlive no longer than its next look
    /// (``ServiceConfiguration/parentToOutlive``) has ended: this process then has another
    /// parent (init, or a subreaper). Logged once.
    private var isOrphaned: Bool {
        guard let parent = configuration.parentToOutlive, getppid() != parent else { return false }
        if !toldOrphaned {
            toldOrphaned = true
            logLine("journey serve: the process that started it (pid \(parent)) ended: stopping")
        }
        return true
    }
    private var toldOrphaned = false

    private func start(_ index: Int, socket: ListeningSocket, control: ControlBlock, lifeline: Lifeline) -> Bool {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let arguments = [executable] + workerArguments(index)
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNEY_ADMIN_TOKEN"] = configuration.adminToken
        // The workers' command line names the store without its password: it comes this way.
        if let password = try? configuration.storeLocation().password { environment["PGPASSWORD"] = password }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // Descriptors 3, 4 and 5 of the worker (what `workerArguments` names).
        let descriptors: [Int32] = [socket.descriptor, control.descriptor, lifeline.workerEnd]
        var pid: pid_t = 0
        let error = journey_spawn(executable, argv, envp, descriptors, Int32(descriptors.count), &pid)
        guard error == 0 else {
            logLine("journey serve: cannot start worker w\(index): \(String(cString: strerror(error)))")
            return false
        }
        control.slot(index).reset(pid: pid)
        workers[index] = (pid, .now)
        return true
    }

    /// Exited workers: (index, wait status).
    private func reap() -> [(Int, Int32)] {
        var exited: [(Int, Int32)] = []
        while true {
            var status: Int32 = 0
            let pid = waitpid(-1, &status, WNOHANG)
            guard pid > 0 else { break }
            if let index = workers.first(where: { $0.value.pid == pid })?.key {
                exited.append((index, status))
            }
        }
        return exited
    }

    /// Records why worker `index` ended (quarantining the rule it was evaluating, or poisoning
    /// the revision it was validating); returns how long to wait before restarting it.
    private func handleDeath(
        of index: Int, status: Int32, control: ControlBlock, store: any StoreConnection, snapshots: RuleSnapshots
    ) -> Duration {
        let slot = control.slot(index)
        let pid = workers[index]?.pid ?? 0
        let lived = ContinuousClock.now - (workers[index]?.startedAt ?? .now)
        workers[index] = nil
        var text = "journey serve: worker w\(index) (pid \(pid)) \(Self.describe(status))"
        switch slot.activity {
        case .evaluating:
            let rule = slot.rule
            let stuck = journey_wait_exited(status) && journey_wait_exit_code(status) == Worker.stuckExitCode
            let record = QuarantineRecord(
                ruleID: rule, ruleDigest: slot.ruleDigest, reason: stuck ? "stuck" : "crashed",
                inputDigest: slot.requestDigest,
                detail: "worker w\(index) \(Self.describe(status)) while evaluating it for \(slot.request)",
                quarantinedAt: configuration.clock())
            do {
                try store.quarantine(record)
                control.quarantineChanged()
                text += " while evaluating rule `\(rule)` for \(slot.request); quarantined the rule"
            } catch {
                text += " while evaluating rule `\(rule)`; could not record its quarantine: \(error)"
            }
        case .validating:
            text += validationDeath(slot.candidate, status: status, control: control, snapshots: snapshots)
        case .idle:
            break
        }
        slot.activity = .idle
        slot.isReady = false
        // A worker that keeps dying right after it starts is restarted more slowly (at most 16 s).
        let crashes = lived < .seconds(2) ? (recentCrashes[index] ?? 0) + 1 : 0
        recentCrashes[index] = crashes
        let delay = Self.backoff(afterCrashes: crashes)
        slot.recordCrashLoop(crashes: crashes, backoff: delay)
        logLine(text + (delay > .zero ? "; restarting it in \(DurationText.format(delay))" : "; restarting it"))
        return delay
    }

    /// The wait before restarting a worker that died `crashes` times in a row soon after it
    /// started: none for the first, then 125 ms doubling up to 16 s.
    static func backoff(afterCrashes crashes: Int) -> Duration {
        crashes <= 1 ? .zero : .milliseconds(min(16_000, 125 << min(crashes - 2, 7)))
    }

    /// Whether a wait status is a crash (a signal of a fault, or an evaluation that could not be
    /// stopped) rather than an end from outside (SIGKILL, SIGTERM) or an exit.
    static func isCrash(_ status: Int32) -> Bool {
        if journey_wait_exited(status) { return journey_wait_exit_code(status) == Worker.stuckExitCode }
        guard journey_wait_signaled(status) else { return false }
        return [SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS].contains(journey_wait_signal(status))
    }

    /// A worker died testing `revision`: counted when it crashed, and the revision poisoned at
    /// the second crash in a row (another worker serving it since means it passed meanwhile).
    private func validationDeath(
        _ revision: String, status: Int32, control: ControlBlock, snapshots: RuleSnapshots
    ) -> String {
        let name = revision.prefix(12)
        guard Self.isCrash(status) else {
            return
                " while testing rule revision \(name); not held against the revision: only a crash of its tests is"
        }
        let workers = max(Int(control.load(.workers)), 1)
        let passedSince = (0..<min(workers, ControlBlock.maxWorkers)).contains {
            control.slot($0).isReady && control.slot($0).serving == revision
        }
        let crashes = (passedSince ? 0 : validationCrashes[revision] ?? 0) + 1
        validationCrashes[revision] = crashes
        guard crashes >= Self.crashesThatPoison else {
            return
                " while testing rule revision \(name) (crash \(crashes) of \(Self.crashesThatPoison) in a row before it is set aside)"
        }
        validationCrashes[revision] = nil
        snapshots.poison(revision)
        return
            " while testing rule revision \(name), which crashed workers \(crashes) times in a row; that revision will not be tried again"
    }

    /// Workers alive for 2 s are out of their crash loop: its count and backoff go back to 0.
    private func clearCrashLoops(control: ControlBlock, now: ContinuousClock.Instant) {
        for (index, worker) in workers where (recentCrashes[index] ?? 0) > 0 && now - worker.startedAt >= .seconds(2) {
            recentCrashes[index] = 0
            control.slot(index).recordCrashLoop(crashes: 0, backoff: .zero)
        }
    }

    private func shutdown(_ control: ControlBlock, code: Int32) -> Int32 {
        control.store(.shuttingDown, 1)
        for (_, worker) in workers { kill(worker.pid, SIGTERM) }
        let deadline = ContinuousClock.now + configuration.shutdownGrace + .seconds(2)
        while !workers.isEmpty, ContinuousClock.now < deadline {
            for (index, _) in reap() { workers[index] = nil }
            usleep(10_000)
        }
        for (index, worker) in workers {
            logLine(
                "journey serve: worker w\(index) did not stop within \(DurationText.format(configuration.shutdownGrace + .seconds(2))) of SIGTERM: killed (what it had not written is lost)"
            )
            kill(worker.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(worker.pid, &status, 0)
        }
        workers.removeAll()
        return code
    }

    static func describe(_ status: Int32) -> String {
        if journey_wait_signaled(status) { return "was killed by \(SignalReader.name(journey_wait_signal(status)))" }
        if journey_wait_exited(status) {
            let code = journey_wait_exit_code(status)
            return code == Worker.stuckExitCode
                ? "ended itself (an evaluation could not be stopped)" : "exited with code \(code)"
        }
        return "ended (status \(status))"
    }
}
