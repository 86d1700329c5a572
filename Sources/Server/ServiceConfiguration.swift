import Auth
import Core
import FeatureKit
import Foundation
import RevisionStore
import Store
import StoreBackends

/// How `journey serve` runs. The defaults are the embedded setup: loopback, the bundled rules
/// and plugins, an SQLite file in the working directory.
public struct ServiceConfiguration: Sendable {
    /// The features served: their routes, rule kinds, consumers and jobs (the `journey`
    /// executable hands in every feature; a test may serve fewer).
    public var features: FeatureSet
    /// Address to bind (loopback by default: put a proxy in front to expose it).
    public var host = "127.0.0.1"
    /// Port; 0 picks a free one (printed at start).
    public var port = 8080
    /// Worker processes; each serves requests on one thread.
    public var workers = max(ProcessInfo.processInfo.activeProcessorCount, 1)
    public var databasePath = "journey.sqlite"
    /// A PostgreSQL standby of the store that views may read from (`--read-url`; nil: the
    /// store answers everything). See ``ReadReplica``.
    public var readURL: String?
    public var rulesDirectory = "Rules"
    public var pluginsDirectory: String? = "Plugins"
    /// Rule snapshots, the last good revision, poisoned revisions (default: next to the database).
    public var stateDirectory: String?
    /// The admin credentials' text (see ``AdminCredentials``): one bearer token, or one `NAME
    /// TOKEN` per line; nil turns the admin endpoints off.
    public var adminToken: String?

    /// The admin credentials `adminToken` gives (nil when off or unreadable: checked at start).
    public var adminCredentials: AdminCredentials? { adminToken.flatMap { try? AdminCredentials($0) } }
    /// Bearer tokens for the app routes (nil: app routes are served without authentication,
    /// which `journey serve` allows on loopback only, or with `--insecure-no-auth`).
    public var tokens: TokenSettings?
    /// The verifier of `tokens`.
    public var tokenVerifier: TokenVerifier? { tokens?.verifier }
    /// Serve app routes without authentication on any address (`--insecure-no-auth`).
    public var insecureNoAuth = false
    /// Each user's app requests per second (nil: not limited); see ``UserRateLimits``.
    public var userRequestLimit: RateLimit?
    /// Each user's events per second (nil: not limited).
    public var userEventLimit: RateLimit?
    public var maxBodyBytes = 1 << 20
    public var connectionTimeoutSeconds = 30
    /// Connections each worker holds at once (lowered at start to what `ulimit -n` allows).
    public var connectionLimit = 4096
    /// Connections one client address may hold per worker (0: no limit; behind a proxy all
    /// clients share its address).
    public var perAddressConnectionLimit = 64
    /// Idle connections (waiting for a request or the rest of one) each worker holds: past it,
    /// the one idle the longest is shed for each new one, so a worker never reaches
    /// ``connectionLimit`` and always accepts (nil: 15/16 of it; 0: no bound).
    public var idleConnectionLimit: Int?
    /// Time a connection has to send a request's headers, from its opening or its previous
    /// response (zero: none): slow senders cannot hold connections.
    public var headerTimeout: Duration = .seconds(10)
    /// Time a request has to send its body after its headers (zero: none).
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a halted evaluation may keep running (inside one C builtin) before its worker
    /// is ended.
    public var stuckGrace: Duration = .seconds(1)
    /// Address-space cap of each worker (0: none).
    public var workerMemoryBytes = 4 << 30
    /// How long a computed view may be served again while neither the dog's data nor the rules
    /// changed (0 turns the cache off). Time alone can change a view (offers look back a number
    /// of days), hence the bound.
    public var viewCacheSeconds: Double = 10
    /// Where the JSON-lines access log goes: `-` (standard output), a file, or nil (off).
    public var accessLog: String? = "-"
    /// Watch the rules and plugins directories and reload on change.
    public var watchFiles = true
    /// Where the served rules come from.
    public var rulesSource = RulesSource.automatic
    /// Approvals by other people a revision needs before it is activated (0: off); written to
    /// the store's revision settings at start, so that the CLI on the same store obeys it.
    public var requiredApprovals = 0
    /// How often a worker serving the store's active revision looks for a new activation.
    public var activationPoll: Duration = .milliseconds(200)
    /// Run the features' periodic jobs (the community challenges' daily digest) from the first
    /// worker.
    public var runJobs = true
    /// Quiet time after a file change before reloading (an editor's save is several events).
    public var reloadDebounce: Duration = .milliseconds(100)
    /// How long SIGTERM waits for requests in progress.
    public var shutdownGrace: Duration = .seconds(10)
    /// How long a starting service waits for its port while other processes hold it (the
    /// workers of a service that is stopping).
    public var listenWait: Duration = .seconds(10)
    /// The process the supervisor outlives no longer than its next look (`--exit-with-parent`):
    /// once its parent is no longer this process, it stops as on SIGTERM. Nil: it keeps serving.
    public var parentToOutlive: Int32?
    /// The `journey` executable, for the worker processes and isolated evaluations (default:
    /// this process's own executable).
    public var executable: String?
    /// The clock (tests fix it).
    public var clock: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    public init(features: FeatureSet) {
        self.features = features
    }

    /// The `journey` executable to start.
    public var resolvedExecutable: String {
        executable ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
    }

    /// The state directory: as given, else `<database>.state` beside an SQLite database, or
    /// `postgres-<database name>.state` in the working directory for a PostgreSQL store.
    public var resolvedStateDirectory: String {
        if let stateDirectory { return stateDirectory }
        if case .postgres(let url)? = try? storeLocation().backend {
            return "postgres-" + Self.databaseName(url) + ".state"
        }
        let base = databasePath.hasSuffix(".sqlite") ? String(databasePath.dropLast(7)) : databasePath
        return base + ".state"
    }

    /// The database a PostgreSQL URL names (its path), as a file name may hold it.
    static func databaseName(_ url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "?" }
        let path = rest.firstIndex(of: "/").map { rest[rest.index(after: $0)...] } ?? ""
        let name = path.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }
        return name.isEmpty ? "default" : String(name)
    }

    /// The store as logs show it (without a password).
    public var storeDescription: String {
        (try? storeLocation().withoutPassword) ?? databasePath
    }
}

/// Where `journey serve` takes its rules from.
public enum RulesSource: String, Sendable, CaseIterable {
    /// The store's active revision once one is published (`journey publish`); the folders
    /// until then.
    case automatic = "auto"
    /// The store's active revision only (a worker refuses to start without one).
    case store
    /// The rules and plugins folders, watched (the development mode).
    case folder
}

extension ServiceConfiguration {
    /// Where the store is (`databasePath` as `--db` gave it).
    public func storeLocation() throws(StoreLocationError) -> StoreLocation {
        try StoreLocation(databasePath)
    }

    /// Where the rules served come from, as the start-up line says it: the store's active
    /// revision (followed), or the folders.
    public var rulesDescription: String {
        let folders = "rules \(rulesDirectory)"
        guard rulesSource != .folder else { return folders }
        let location = try? storeLocation()
        let active =
            location?.exists == true
            ? (try? location?.open(schema: features.schema, migrate: false)).flatMap { try? $0.activeRevision() } : nil
        guard let active else { return rulesSource == .store ? "rules: no revision published" : folders }
        return "rules: the store's active revision \(active.revision.prefix(12)), followed"
    }
}
