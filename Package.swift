// swift-tools-version:6.0
import PackageDescription

/// The Journey engine: jq rules in YAML files, evaluated with libjq.
/// No package dependencies: C libraries come from Debian through system-library targets.
let package = Package(
    name: "Journey",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "journey", targets: ["journey"]),
        .library(name: "RuleEngine", targets: ["RuleEngine"]),
    ],
    targets: [
        // C libraries (Debian packages), one system-library target each.
        .systemLibrary(name: "CJQ", path: "Sources/CJQ"),
        .systemLibrary(name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd"),
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq"),
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto"),
        // Process plumbing C does better than Swift: atomics on shared memory, posix_spawn, prctl.
        .target(name: "CSupport"),
        // ICU (Debian's libicu-dev): its headers clash with the ICU inside the toolchain's
        // Foundation when one Swift module sees both, so a C file calls it behind plain C types.
        .target(name: "CICU", linkerSettings: [.linkedLibrary("icui18n"), .linkedLibrary("icuuc")]),

        // The core under everything: JSON (strict parser, encoder), timestamps, durations,
        // SHA-256 (libcrypto's), the identifier rule.
        .target(name: "Core", dependencies: ["COpenSSL"]),

        // Swift wrappers, one per C library.
        .target(name: "JQ", dependencies: ["CJQ", "Core"]),
        .target(name: "YAML", dependencies: ["CYAML", "Core"]),
        .target(name: "SQLite", dependencies: ["CSQLite", "Core"]),
        .target(name: "Postgres", dependencies: ["CPostgres", "Core"]),
        .target(name: "HTTP", dependencies: ["CMicroHTTPD", "Core"]),
        // Locales: CLDR plural rules, numbers, dates and weekdays (ICU's), and texts written in
        // a small MessageFormat (`{name}`, `{count, plural, one {…} other {…}}`) rendered per locale.
        .target(name: "Locales", dependencies: ["CICU", "Core"]),
        // Bearer tokens: JSON Web Tokens (HS256, RS256, ES256) checked with libcrypto.
        .target(name: "Auth", dependencies: ["COpenSSL", "Core"]),

        // Storage: the Store protocol a backend implements (transactions, savepoints, the shared
        // SQL) and the engine's rows written once in the shared SQL.
        .target(name: "Store", dependencies: ["Core"]),
        // The backends: the embedded SQLite store, the PostgreSQL store for several instances,
        // and the one place that opens the store a location (`--db`) names.
        .target(name: "SQLiteStore", dependencies: ["Store", "SQLite", "Core"]),
        .target(name: "PostgresStore", dependencies: ["Store", "Postgres", "Core"]),
        .target(name: "StoreBackends", dependencies: ["Store", "SQLiteStore", "PostgresStore"]),

        // Rule files → diagnostics → RuleSet; evaluation and tests.
        .target(name: "RuleEngine", dependencies: ["Core", "JQ", "YAML"]),

        // The one ingest path: events → consumers → effects → store.
        .target(name: "Engine", dependencies: ["RuleEngine", "Store", "JQ", "Core"]),

        // What a feature plugs in (rule and document kinds, consumers, routes, commands, jobs),
        // and the command-line parsing its commands use.
        .target(name: "CommandKit"),
        .target(
            name: "FeatureKit",
            dependencies: [
                "CommandKit", "Engine", "RuleEngine", "RevisionStore", "Store", "StoreBackends", "HTTP", "JQ", "Core",
                "Locales", "YAML",
            ]),

        // Features, each one module: check plugins, and the Dog Journey.
        .target(
            name: "CheckPlugins",
            dependencies: ["Engine", "RuleEngine", "Store", "JQ", "Core", "YAML", "FeatureKit", "CommandKit", "HTTP"]),
        .target(
            name: "Journey",
            dependencies: [
                "CheckPlugins", "Engine", "RuleEngine", "Store", "JQ", "Core", "YAML", "FeatureKit", "CommandKit",
                "HTTP", "Locales",
            ], resources: [.copy("openapi.json")]),
        // The statistics of experiment results (pure Swift): Student t and chi-square
        // distributions, gbstats' frequentist t-test of proportions, the sample-ratio check.
        .target(name: "ExperimentStatistics"),
        // A/B experiments (GrowthBook assignment, sticky, results) and the walk-through onboarding engine.
        .target(
            name: "Experiments",
            dependencies: [
                "ExperimentStatistics", "RuleEngine", "Store", "JQ", "Core", "YAML", "FeatureKit", "CommandKit", "HTTP",
                "Revisions", "RevisionStore",
            ], resources: [.copy("openapi.json")]),
        .target(
            name: "Onboarding",
            dependencies: [
                "Experiments", "Engine", "RuleEngine", "Store", "JQ", "Core", "YAML", "FeatureKit", "CommandKit",
                "HTTP", "Locales", "Revisions",
            ], resources: [.copy("openapi.json")]),
        // Habit trackers: check-ins through the ingest path, statistics as habit_stat rules.
        .target(
            name: "Habits",
            dependencies: ["Engine", "RuleEngine", "Store", "JQ", "Core", "FeatureKit", "CommandKit", "HTTP"],
            resources: [.copy("openapi.json")]),
        // Challenges: solo, community, head-to-head and recurring, progress through the ingest path.
        .target(
            name: "Challenges",
            dependencies: [
                "Engine", "RuleEngine", "Store", "JQ", "Core", "YAML", "FeatureKit", "CommandKit", "HTTP", "Auth",
            ],
            resources: [.copy("openapi.json")]),
        // The served rule set's records, below the features: revisions kept in the store with
        // their files, which one is active, and the audit trail.
        .target(name: "RevisionStore", dependencies: ["RuleEngine", "Store", "Core"]),
        // Rule revisions: publishing, gates, diffs, impact previews; the commands and admin routes
        // that manage them.
        .target(
            name: "Revisions",
            dependencies: [
                "RevisionStore", "FeatureKit", "CommandKit", "RuleEngine", "Engine", "Store", "HTTP", "JQ", "Core",
                "Locales",
            ],
            resources: [.copy("openapi.json")]),
        // The product managers' console at /console: static pages over the admin API.
        .target(
            name: "Console", dependencies: ["FeatureKit", "HTTP", "Core"],
            resources: [.copy("openapi.json"), .copy("Assets")]),
        // The one list of features.
        .target(
            name: "Features",
            dependencies: [
                "FeatureKit", "Journey", "Onboarding", "Experiments", "Habits", "Challenges", "CheckPlugins",
                "Revisions",
                "Console",
            ]),

        // The HTTP service: a pure router over the engine, libmicrohttpd as the adapter, and a
        // supervisor with worker processes.
        .target(
            name: "Server",
            dependencies: [
                "HTTP", "CSupport", "FeatureKit", "Engine", "RuleEngine", "RevisionStore", "Store", "StoreBackends",
                "JQ", "Core", "Auth", "Locales",
            ],
            resources: [.copy("openapi.json")]
        ),

        // The command line, over injected streams; `journey` only calls it.
        .target(
            name: "JourneyCLI",
            dependencies: [
                "Server", "HTTP", "FeatureKit", "CommandKit", "Engine", "RuleEngine", "Store", "StoreBackends", "JQ",
                "Core", "Auth", "Locales",
            ]),
        // The executable: the one place that names every feature, handed to the command line.
        .executableTarget(name: "journey", dependencies: ["JourneyCLI", "Features"]),

        // Benchmarks: the engine beside a plain C loop over libjq, measured in one run.
        .target(
            name: "JQBaseline",
            dependencies: ["CJQ"],
            linkerSettings: [.linkedLibrary("jq")]
        ),
        .executableTarget(
            name: "journey-bench",
            dependencies: [
                "Features", "FeatureKit", "Journey", "Habits", "Challenges", "Revisions", "Engine", "RuleEngine",
                "Store", "SQLiteStore",
                "SQLite", "Postgres", "JQ",
                "Core", "JQBaseline",
                "HTTP", "RevisionStore", "Server", "TestSupport", "Locales",
            ],
            path: "Sources/Benchmarks"
        ),

        // What the test targets share: the repository's folders, case files, seeded random
        // numbers, temporary folders and stores. Low layers only, so every test target can use it.
        .target(
            name: "TestSupport",
            dependencies: [
                "Store", "SQLiteStore", "PostgresStore", "StoreBackends", "SQLite", "Postgres", "YAML", "Core", "Auth",
                "HTTP",
            ],
            path: "Tests/TestSupport"),

        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport", "Core"]),
        .testTarget(name: "CoreTests", dependencies: ["Core", "TestSupport"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "Core", "TestSupport"]),
        .testTarget(
            name: "ExperimentStatisticsTests", dependencies: ["ExperimentStatistics", "Core", "TestSupport"],
            exclude: ["Cases"]),
        .testTarget(name: "JQTests", dependencies: ["JQ", "CJQ", "Core", "TestSupport"]),
        .testTarget(
            name: "LocalesTests",
            dependencies: ["Locales", "FeatureKit", "Features", "RuleEngine", "Core", "TestSupport"],
            exclude: ["Cases"]),
        .testTarget(name: "YAMLTests", dependencies: ["YAML", "Core"]),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "CSQLite", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "Core", "TestSupport"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "FeatureKit", "HTTP", "TestSupport"]),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "Store", "SQLiteStore", "PostgresStore", "StoreBackends", "SQLite", "Postgres", "Core", "TestSupport",
            ]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres"]),
        .testTarget(
            name: "RevisionsTests",
            dependencies: [
                "Revisions", "RevisionStore", "Features", "FeatureKit", "Engine", "Store", "SQLite", "RuleEngine",
                "Core", "TestSupport",
            ],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "EngineTests",
            dependencies: ["Engine", "RuleEngine", "Store", "SQLite", "JQ", "Core", "TestSupport"],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "RuleEngineTests",
            dependencies: ["RuleEngine", "Features", "JQ", "Core", "TestSupport"],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "JourneyTests",
            dependencies: [
                "Journey", "Features", "CheckPlugins", "Engine", "RuleEngine", "Store", "SQLiteStore", "SQLite",
                "Postgres", "JQ",
                "Core", "FeatureKit",
                "TestSupport",
            ],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "ExperimentsTests",
            dependencies: [
                "Experiments", "ExperimentStatistics", "Onboarding", "Features", "Engine", "RuleEngine", "Store",
                "SQLite",
                "JQ", "Core", "TestSupport",
            ],
            exclude: ["Cases", "gbstats_reference.py"]
        ),
        .testTarget(
            name: "HabitsTests",
            dependencies: [
                "Habits", "Features", "FeatureKit", "Engine", "RuleEngine", "Store", "SQLiteStore", "StoreBackends",
                "SQLite", "Postgres", "JQ", "Core",
                "TestSupport",
            ],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "ChallengesTests",
            dependencies: [
                "Challenges", "Features", "FeatureKit", "Engine", "RuleEngine", "Store", "SQLiteStore", "SQLite", "JQ",
                "Core", "TestSupport",
            ],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "HTTP", "Journey", "Challenges", "Habits", "Features", "FeatureKit", "Revisions",
                "RevisionStore", "Engine", "RuleEngine", "Store", "SQLiteStore", "StoreBackends",
                "SQLite", "JQ",
                "Core", "Auth",
                "TestSupport",
            ],
            exclude: ["Cases"]
        ),
        .testTarget(
            name: "JourneyCLITests",
            dependencies: [
                "JourneyCLI", "Features", "CommandKit", "RuleEngine", "JQ", "Core", "SQLite", "Store", "SQLiteStore",
                "TestSupport",
            ]
        ),
        // The migrations of every owner together: their order, and stores made when they were
        // numbered (`numbered-schema.sql`) opened under their names, on both backends.
        .testTarget(
            name: "SchemaTests",
            dependencies: [
                "Features", "FeatureKit", "RevisionStore", "Engine", "RuleEngine", "Store", "StoreBackends", "Core",
                "TestSupport",
            ],
            exclude: ["numbered-schema.sql"]),
        // The layers: what each module imports and declares (read from the files).
        .testTarget(name: "ArchitectureTests"),
        // The README's ```console examples, run against the built `journey` executable.
        .testTarget(name: "ReadmeTests"),
    ],
    swiftLanguageModes: [.v6]
)
