import CommandKit
import Core
import FeatureKit
import Foundation
import HTTP
import JQ
import RuleEngine
import Server
import Store

/// `journey serve`: the HTTP service.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "journey serve",
        overview: "Serve the HTTP API: events, dogs and their journey, reminders, rules admin, metrics.",
        discussion: """
            A supervisor process owns the listening socket and starts --workers worker processes
            that serve requests; a worker that crashes or is ended (an evaluation that cannot be
            stopped) is restarted at once, and the rule it was evaluating is quarantined for
            everyone: it answers with its fallback until it changes. A rule that runs past its
            budget is halted and quarantined for that input only (the dog or user): the others
            keep the rule. A view never fails for a rule: it lists it under `degraded`.
            Rules and plugins are watched and reloaded on change, on SIGHUP and on
            POST /v1/rules/reload; a change whose rules do not load or whose tests fail is
            refused and the last good rules keep serving.
            Once a revision is published in the store ('journey publish'), every worker serves the
            active revision instead and follows each activation (see --rules-from).
            Admin endpoints need JOURNEY_ADMIN_TOKEN (or --admin-token-file): one token, named
            `admin` in the audit trail, or one `NAME TOKEN` per line; without a token they are off. The API is described at /openapi.json. SIGTERM stops gracefully.
            App routes need a bearer JWT (its `sub` is the user) once --jwt-secret-file,
            --jwt-public-key-file or --jwks-file is given; without one they are served
            unauthenticated, on a loopback address only (unless --insecure-no-auth). Service
            credentials (`NAME SCOPE[,SCOPE] TOKEN` lines of the admin token file; scopes
            reminders, analytics, metrics, and the admin roles viewer, editor, publisher, admin)
            call the reminders routes, /metrics and the admin routes each role allows.
            """,
        options: [
            OptionSpec(long: "host", valueName: "address", help: "Address to bind.", defaultValue: "127.0.0.1"),
            OptionSpec(long: "port", valueName: "port", help: "Port to bind (0: any free port).", defaultValue: "8080"),
            OptionSpec(
                long: "listen-wait", valueName: "duration",
                help: "How long to wait for the port while other processes hold it (a service still stopping).",
                defaultValue: "10s"),
            OptionSpec(
                long: "workers", valueName: "n",
                help: "Worker processes (0: serve in this process, without a supervisor).",
                defaultValue: "the number of cores"),
            CommonOptions.database,
            OptionSpec(
                long: "read-url", valueName: "url",
                help:
                    "A PostgreSQL standby of the --db store that views (GET of a user's screens) read from once it has replayed what they must show: the revision served and the user's own writes; else, or when it is down, the primary answers."
            ),
            CommonOptions.rules, CommonOptions.plugins,
            OptionSpec(
                long: "state-dir", valueName: "dir", help: "Rule snapshots and the last good revision.",
                defaultValue: "<db>.state"),
            OptionSpec(
                long: "admin-token-file", valueName: "path",
                help:
                    "File of the admin and service credentials: one token, or NAME [SCOPE,…] TOKEN lines (else JOURNEY_ADMIN_TOKEN)."
            ),
            OptionSpec(
                long: "jwt-secret-file", valueName: "path",
                help: "File holding the HS256 secret app tokens are signed with (at least 32 bytes)."),
            OptionSpec(
                long: "jwt-public-key-file", valueName: "path",
                help: "PEM public key (RSA: RS256, EC P-256: ES256) app tokens are signed for."),
            OptionSpec(
                long: "jwks-file", valueName: "path", help: "JWKS file of the keys app tokens are signed for (by kid)."),
            OptionSpec(long: "jwt-issuer", valueName: "iss", help: "The issuer (iss) app tokens must have."),
            OptionSpec(long: "jwt-audience", valueName: "aud", help: "The audience (aud) app tokens must name."),
            OptionSpec(
                long: "insecure-no-auth",
                help:
                    "Serve the app routes without tokens on a non-loopback address (behind a gateway that checks them)."
            ),
        ] + rateLimitOptions + [
            OptionSpec(long: "max-body", valueName: "size", help: "Largest request body.", defaultValue: "1MiB"),
            OptionSpec(
                long: "connection-timeout", valueName: "duration", help: "Idle time before a connection closes.",
                defaultValue: "30s"),
        ] + connectionOptions + [
            OptionSpec(
                long: "view-cache", valueName: "duration",
                help: "How long an unchanged dog's view is served again (0 turns it off).", defaultValue: "10s"),
            OptionSpec(
                long: "access-log", valueName: "path", help: "JSON-lines access log: -, a file, or off.",
                defaultValue: "-"),
            OptionSpec(
                long: "worker-memory", valueName: "size", help: "Address-space cap of each worker (0: none).",
                defaultValue: "4GiB"),
            OptionSpec(
                long: "stuck-grace", valueName: "duration",
                help: "How long a halted evaluation may keep running before its worker is ended.",
                defaultValue: "1s"),
            OptionSpec(
                long: "shutdown-grace", valueName: "duration",
                help: "How long SIGTERM lets requests in progress finish before their connections close.",
                defaultValue: "10s"),
            OptionSpec(
                long: "require-approvals", valueName: "n",
                help:
                    "Activate a revision only once N people other than its author approved it (kept in the store: journey publish and rollback obey it too).",
                defaultValue: "0"),
            OptionSpec(long: "no-watch", help: "Do not watch the rule files (reload on SIGHUP or the admin endpoint)."),
            OptionSpec(
                long: "rules-from", valueName: "source",
                help:
                    "Serve the store's active revision (store), the folders (folder), or the active revision once one is published (auto; folder when --rules or --plugins is given).",
                allowedValues: RulesSource.allCases.map(\.rawValue)),
            OptionSpec(
                long: "no-jobs",
                help:
                    "Do not run the features' periodic jobs: the community challenges' daily digest (run `journey challenge digest` instead)."
            ),
            OptionSpec(long: "no-digest", help: "The same as --no-jobs (its earlier name).", isHidden: true),
            OptionSpec(
                long: "activation-poll", valueName: "duration",
                help: "How often each worker reads the active revision besides the store's notifications (tests).",
                defaultValue: "200ms", isHidden: true),
            OptionSpec(
                long: "exit-with-parent",
                help:
                    "Stop, as on SIGTERM, once the process that started the service ends, however it ends (tests and scripts: a killed run leaves no service behind). Needs a supervisor (--workers 1 or more)."
            ),
            OptionSpec(long: "worker-index", valueName: "n", help: "(internal)", isHidden: true),
            OptionSpec(long: "isolated-eval", help: "(internal)", isHidden: true),
            OptionSpec(long: "isolated-job", valueName: "name", help: "(internal)", isHidden: true),
            OptionSpec(long: "listen-fd", valueName: "fd", help: "(internal)", isHidden: true),
            OptionSpec(long: "control-fd", valueName: "fd", help: "(internal)", isHidden: true),
            OptionSpec(long: "lifeline-fd", valueName: "fd", help: "(internal)", isHidden: true),
        ])

    static func run(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ExitCode
    {
        if let extra = arguments.positionals.first {
            throw UsageError(message: "Unexpected argument '\(extra)'", command: spec)
        }
        if arguments.flag("isolated-eval") {
            // A child of a worker evaluating one ad-hoc expression (POST /v1/eval).
            io.stdout.flush()
            exit(IsolatedEvaluation.serveChild())
        }
        if let name = arguments.values["isolated-job"]?.last {
            // A child of a worker running one feature's isolated job (a revision's gates).
            guard let job = engine.isolatedJob(named: name) else {
                throw UsageError(message: "No isolated job '\(name)'", command: spec)
            }
            let grace = try duration(arguments, "stuck-grace", "1s")
            io.stdout.flush()
            exit(IsolatedJobChild.serve(job, engine: engine, stuckGrace: grace))
        }
        var configuration = try configuration(arguments, io: io, engine: engine)

        if let indexText = arguments.values["worker-index"]?.last {
            // A worker started by the supervisor: serve the inherited socket until told to stop.
            guard let index = Int(indexText), let listen = arguments.values["listen-fd"]?.last.flatMap({ Int32($0) }),
                let controlFD = arguments.values["control-fd"]?.last.flatMap({ Int32($0) })
            else { throw UsageError(message: "--worker-index needs --listen-fd and --control-fd", command: spec) }
            io.stdout.flush()
            io.stderr.flush()
            do {
                let control = try ControlBlock.adopt(descriptor: controlFD)
                let socket = ListeningSocket(adopting: listen, host: configuration.host, port: configuration.port)
                let lifeline = arguments.values["lifeline-fd"]?.last.flatMap { Int32($0) }
                exit(
                    Worker.run(
                        configuration: configuration, index: index, socket: socket, control: control,
                        lifeline: lifeline))
            } catch {
                io.stderr.line("Error: \(error)")
                return .failure
            }
        }

        io.stderr.line("journey serve: \(authenticationSummary(configuration))")
        io.stderr.line("journey serve: \(rateLimitSummary(configuration))")
        if configuration.workers == 0 {
            configuration.workers = 1
            do {
                let socket = try ListeningSocket.waitingForPort(
                    host: configuration.host, port: configuration.port, wait: configuration.listenWait
                ) {
                    io.stderr.line(
                        "journey serve: waiting for \(configuration.host):\(configuration.port): it is in use; trying again for up to \(DurationText.format(configuration.listenWait))"
                    )
                    io.stderr.flush()
                }
                let control = try ControlBlock.create()
                control.setWorkerCount(1)
                io.stderr.line(
                    "journey serve: listening on http://\(socket.host):\(socket.port) (one process, no supervisor)")
                io.stderr.flush()
                let code = Worker.run(
                    configuration: configuration, index: 0, socket: socket, control: control, supervised: false)
                socket.close()
                return code == 0 ? .success : code == Worker.configurationExitCode ? .ruleErrors : .failure
            } catch {
                io.stderr.line("Error: \(error)")
                return .failure
            }
        }

        let flags = workerFlags(configuration)
        let supervisor = Supervisor(configuration: configuration) { index in
            ["serve", "--worker-index", String(index), "--listen-fd", "3", "--control-fd", "4", "--lifeline-fd", "5"]
                + flags
        }
        io.stdout.flush()
        io.stderr.flush()
        let code = supervisor.run { address in
            logLine(
                "journey serve: listening on \(address) (\(configuration.workers) worker\(configuration.workers == 1 ? "" : "s"), \(configuration.rulesDescription), store \(configuration.storeDescription))"
            )
        }
        return code == 0 ? .success : code == Worker.configurationExitCode ? .ruleErrors : .failure
    }

    /// The configuration the flags and environment describe.
    static func configuration(_ arguments: ParsedArguments, io: CommandIO, engine: FeatureSet) throws(UsageError)
        -> ServiceConfiguration
    {
        var configuration = ServiceConfiguration(features: engine)
        configuration.host = arguments.value("host", spec: spec) ?? configuration.host
        configuration.port = try integer(arguments, "port", in: 0...65535) ?? configuration.port
        configuration.listenWait = try duration(arguments, "listen-wait", "10s")
        if let workers = try integer(arguments, "workers", in: 0...ControlBlockLimits.maxWorkers) {
            configuration.workers = workers
        }
        configuration.databasePath = arguments.value("db", spec: spec) ?? configuration.databasePath
        let store = try CommonOptions.storeLocation(arguments, spec: spec)
        if let url = arguments.values["read-url"]?.last {
            guard case .postgres = store.backend, case .postgres? = try? StoreLocation(url).backend else {
                throw UsageError(
                    message:
                        "--read-url needs a PostgreSQL store (--db postgresql://…) and a postgresql:// URL of its standby",
                    command: spec)
            }
            configuration.readURL = url
        }
        configuration.rulesDirectory = arguments.value("rules", spec: spec) ?? "./Rules"
        configuration.pluginsDirectory = arguments.value("plugins", spec: spec) ?? "./Plugins"
        configuration.stateDirectory = arguments.values["state-dir"]?.last
        configuration.maxBodyBytes = try size(arguments, "max-body", "1MiB")
        configuration.connectionTimeoutSeconds = Int(
            try duration(arguments, "connection-timeout", "30s").components.seconds)
        configuration.viewCacheSeconds = try duration(arguments, "view-cache", "10s").seconds
        let log = arguments.value("access-log", spec: spec) ?? "-"
        configuration.accessLog = log == "off" ? nil : log
        configuration.workerMemoryBytes = try size(arguments, "worker-memory", "4GiB")
        configuration.stuckGrace = try duration(arguments, "stuck-grace", "1s")
        configuration.shutdownGrace = try duration(arguments, "shutdown-grace", "10s")
        configuration.activationPoll = try duration(arguments, "activation-poll", "200ms")
        configuration.watchFiles = !arguments.flag("no-watch")
        configuration.requiredApprovals = try integer(arguments, "require-approvals", in: 0...20) ?? 0
        let explicitFolders = arguments.values["rules"] != nil || arguments.values["plugins"] != nil
        if let source = arguments.values["rules-from"]?.last {
            configuration.rulesSource = RulesSource(rawValue: source) ?? .automatic
        } else if explicitFolders {
            configuration.rulesSource = .folder
        }
        configuration.runJobs = !arguments.flag("no-jobs") && !arguments.flag("no-digest")
        if arguments.flag("exit-with-parent"), arguments.values["worker-index"] == nil {
            guard configuration.workers > 0 else {
                throw UsageError(
                    message: "--exit-with-parent needs a supervisor (--workers 1 or more)", command: spec)
            }
            // Read now: a parent that ended before this line is caught at the supervisor's first look.
            configuration.parentToOutlive = getppid()
        }
        if let path = arguments.values["admin-token-file"]?.last {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError(message: "Cannot read the admin token file '\(path)'", command: spec)
            }
            configuration.adminToken = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            configuration.adminToken = io.environment["JOURNEY_ADMIN_TOKEN"]
        }
        if configuration.adminToken?.isEmpty == true { configuration.adminToken = nil }
        try authentication(arguments, &configuration)
        try rateLimits(arguments, &configuration)
        try connections(arguments, &configuration)
        if let text = configuration.adminToken {
            do {
                _ = try AdminCredentials(text)
            } catch {
                throw UsageError(
                    message: error.line == 1 && !text.contains("\n")
                        ? error.message.prefix(1).uppercased() + error.message.dropFirst()
                        : "The admin credentials, \(error)", command: spec)
            }
        }
        return configuration
    }

    /// The flags that give a worker the supervisor's configuration (the token goes by environment).
    static func workerFlags(_ configuration: ServiceConfiguration) -> [String] {
        var flags = [
            "--host", configuration.host, "--port", String(configuration.port), "--db", configuration.storeDescription,
            "--rules", configuration.rulesDirectory, "--plugins", configuration.pluginsDirectory ?? "./Plugins",
            "--state-dir", configuration.resolvedStateDirectory, "--max-body", String(configuration.maxBodyBytes),
            "--connection-timeout", "\(configuration.connectionTimeoutSeconds)s",
            "--view-cache", "\(Int(configuration.viewCacheSeconds * 1000))ms",
            "--access-log", configuration.accessLog ?? "off",
            "--worker-memory", String(configuration.workerMemoryBytes),
            "--stuck-grace", DurationText.format(configuration.stuckGrace),
            "--shutdown-grace", DurationText.format(configuration.shutdownGrace),
            "--activation-poll", DurationText.format(configuration.activationPoll),
            "--require-approvals", String(configuration.requiredApprovals),
        ]
        if let url = configuration.readURL { flags += ["--read-url", StoreLocation.withoutPassword(url)] }
        if !configuration.watchFiles { flags.append("--no-watch") }
        flags += ["--rules-from", configuration.rulesSource.rawValue]
        if !configuration.runJobs { flags.append("--no-jobs") }
        flags += configuration.tokens?.flags ?? []
        if configuration.insecureNoAuth { flags.append("--insecure-no-auth") }
        return flags + rateLimitFlags(configuration) + connectionFlags(configuration)
    }

    static func integer(_ arguments: ParsedArguments, _ name: String, in range: ClosedRange<Int>)
        throws(UsageError) -> Int?
    {
        guard let text = arguments.values[name]?.last else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                message:
                    "The value '\(text)' for '--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound)",
                command: spec)
        }
        return value
    }

    private static func size(_ arguments: ParsedArguments, _ name: String, _ fallback: String) throws(UsageError) -> Int
    {
        let text = arguments.value(name, spec: spec) ?? fallback
        guard let value = ByteSize.parse(text), value >= 0 else {
            throw UsageError(
                message: "The value '\(text)' for '--\(name) <size>' is not a size such as 1MiB or 65536", command: spec
            )
        }
        return value
    }

    static func duration(_ arguments: ParsedArguments, _ name: String, _ fallback: String) throws(UsageError)
        -> Duration
    {
        let text = arguments.value(name, spec: spec) ?? fallback
        if text == "0" { return .zero }
        guard let value = DurationText.parse(text) else {
            throw UsageError(
                message: "The value '\(text)' for '--\(name) <duration>' is not a duration such as 10s or 250ms",
                command: spec)
        }
        return value
    }
}
