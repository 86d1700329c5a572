import Testing

/// The layers hold: the service and the command line name no feature (the `journey`
/// executable composes them), nothing below the features names one, and every module's imports
/// are what `Package.swift` declares.
@Suite struct ArchitectureTests {
    static let graph = Result { try PackageGraph() }

    /// The features: what the one list of features (`Features`) is made of, besides the kit.
    static func features(_ graph: PackageGraph) -> Set<String> {
        (graph.targets["Features"]?.declared ?? []).subtracting(["FeatureKit"])
    }

    @Test func theGraphIsRead() throws {
        let graph = try Self.graph.get()
        #expect(graph.targets.count > 30, "targets: \(graph.targets.keys.sorted())")
        #expect(Self.features(graph).isSuperset(of: ["Journey", "Habits", "Challenges", "Revisions"]))
        #expect(graph.targets["Server"]?.imported.contains("FeatureKit") == true)
    }

    /// The modules that may be composed into the engine but must name no feature.
    static let layersBelowTheEdge = [
        "Core", "JQ", "YAML", "SQLite", "Postgres", "HTTP", "Auth", "Store", "SQLiteStore", "PostgresStore",
        "StoreBackends", "RuleEngine", "Engine", "CommandKit", "FeatureKit", "RevisionStore", "Server", "JourneyCLI",
    ]

    @Test(arguments: layersBelowTheEdge)
    func namesNoFeature(_ module: String) throws {
        let graph = try Self.graph.get()
        let target = try #require(graph.targets[module], "no target \(module)")
        let forbidden = Self.features(graph).union(["Features"])
        #expect(target.imported.intersection(forbidden).sorted() == [], "\(module) imports a feature")
        #expect(
            graph.closure(of: module).intersection(forbidden).sorted() == [],
            "\(module) depends on a feature (Package.swift)")
    }

    /// A feature's rows are its own: no module below the features names the tables its
    /// migrations create or the members of its store (its `extension Store`/`StoreReader`
    /// functions, such as the Dog Journey's `manifest(dog:)` and `completeBlockStep`).
    @Test func nothingBelowTheFeaturesNamesTheirTablesOrStoreMembers() throws {
        let graph = try Self.graph.get()
        var vocabularies: [String: FeatureVocabulary] = [:]
        for feature in Self.features(graph) {
            vocabularies[feature] = try FeatureVocabulary(
                folder: PackageGraph.root + "/" + graph.targets[feature]!.path)
        }
        #expect(vocabularies["Journey"]?.tables == ["manifests", "catalog_snapshots", "block_progress"])
        #expect(vocabularies["Journey"]?.storeMembers.isSuperset(of: ["manifest", "completeBlockStep"]) == true)
        #expect(vocabularies["Habits"]?.tables.contains("habit_checkins") == true)
        for module in Self.layersBelowTheEdge {
            let folder = PackageGraph.root + "/" + (graph.targets[module]?.path ?? "")
            for (feature, vocabulary) in vocabularies.sorted(by: { $0.key < $1.key }) {
                let namings = try vocabulary.namings(under: folder)
                #expect(namings == [], "\(module) names \(feature)'s rows")
            }
        }
    }

    /// A user of the store protocol (the engine, the rule engine, the features' stores) links
    /// neither backend: only the backends and the one place that opens them do.
    @Test(arguments: ["Store", "Engine", "RuleEngine", "RevisionStore"])
    func linksNoBackend(_ module: String) throws {
        let graph = try Self.graph.get()
        let backends: Set = [
            "SQLite", "CSQLite", "Postgres", "CPostgres", "SQLiteStore", "PostgresStore", "StoreBackends",
        ]
        #expect(graph.closure(of: module).intersection(backends).sorted() == [], "\(module) links a backend")
    }

    /// The executable is where the features meet the command line.
    @Test func theExecutableComposesTheFeatures() throws {
        let graph = try Self.graph.get()
        let journey = try #require(graph.targets["journey"])
        #expect(journey.imported.isSuperset(of: ["Features", "JourneyCLI"]))
    }

    /// Every `import` of a package target's module is declared: a module reached only through
    /// another's dependencies breaks when that one changes.
    @Test func everyImportedTargetIsDeclared() throws {
        let graph = try Self.graph.get()
        let names = Set(graph.targets.keys)
        var undeclared: [String] = []
        for target in graph.targets.values.sorted(by: { $0.name < $1.name }) {
            for module in target.imported.intersection(names).subtracting(target.declared).subtracting([target.name]) {
                undeclared.append("\(target.name) → \(module)")
            }
        }
        #expect(undeclared.sorted() == [], "imported but not declared in Package.swift")
    }
}
