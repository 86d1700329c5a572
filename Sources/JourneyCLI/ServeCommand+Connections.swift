import CommandKit
import Core
import Server

extension ServeCommand {
    static let connectionOptions = [
        OptionSpec(
            long: "connection-limit", valueName: "n",
            help: "Connections each worker holds at once (lowered to what ulimit -n allows).", defaultValue: "4096"),
        OptionSpec(
            long: "idle-connection-limit", valueName: "n",
            help:
                "Idle connections each worker holds; past it the one idle the longest is closed for each new one (0: no bound).",
            defaultValue: "15/16 of --connection-limit"),
        OptionSpec(
            long: "connections-per-address", valueName: "n",
            help: "Connections one client address may hold per worker (0: no limit, e.g. behind a proxy).",
            defaultValue: "64"),
        OptionSpec(
            long: "header-timeout", valueName: "duration",
            help: "Time to send a request's headers, from connecting or the previous response (0: none).",
            defaultValue: "10s"),
        OptionSpec(
            long: "body-timeout", valueName: "duration",
            help: "Time to send a request's body after its headers (0: none).",
            defaultValue: "30s"),
    ]

    /// The connection flags: limits and read deadlines against slow or many connections.
    static func connections(_ arguments: ParsedArguments, _ configuration: inout ServiceConfiguration)
        throws(UsageError)
    {
        configuration.connectionLimit = try integer(arguments, "connection-limit", in: 1...1_000_000) ?? 4096
        configuration.idleConnectionLimit = try integer(arguments, "idle-connection-limit", in: 0...1_000_000)
        configuration.perAddressConnectionLimit =
            try integer(arguments, "connections-per-address", in: 0...1_000_000) ?? 64
        configuration.headerTimeout = try duration(arguments, "header-timeout", "10s")
        configuration.bodyTimeout = try duration(arguments, "body-timeout", "30s")
    }

    /// The flags that give a worker the same connection settings.
    static func connectionFlags(_ configuration: ServiceConfiguration) -> [String] {
        func text(_ duration: Duration) -> String { duration == .zero ? "0" : DurationText.format(duration) }
        return (configuration.idleConnectionLimit.map { ["--idle-connection-limit", String($0)] } ?? []) + [
            "--connection-limit", String(configuration.connectionLimit), "--connections-per-address",
            String(configuration.perAddressConnectionLimit), "--header-timeout", text(configuration.headerTimeout),
            "--body-timeout", text(configuration.bodyTimeout),
        ]
    }
}
