/// Every rule loaded from a rules directory: validated, compiled once to prove it, immutable,
/// and identified by its revision (a SHA-256 over every file read).
///
/// `Sendable`: share one rule set between threads, and give each thread its own
/// ``RuleEvaluator`` (compiled programs belong to one thread at a time).
public struct RuleSet: Sendable {
    /// The rules in file order (files sorted by path, rules in the order written).
    public let rules: [RuleDefinition]
    /// SHA-256 (hex) of every file under the rules and plugins directories.
    public let revision: String
    /// The rules directory as given (how paths in messages start).
    public let rulesDirectory: String
    /// Absolute path of `lib/` inside the rules directory: the only place imports resolve.
    public let libraryDirectory: String
    /// Display paths of the files that were read, sorted.
    public let files: [String]
    /// When the rule set was loaded (seconds since 1970).
    public let loadedAt: Double
    /// Documents of registered kinds (catalogs, plugins, …), in file order.
    public let documents: [LoadedDocument]
    /// Every parameter rules and documents declare, with its value in this revision, in file order.
    public let parameters: [Parameter]
    /// The names parameters of reference types may take, as features gave them.
    public let parameterChoices: ParameterChoices

    private let index: [String: Int]
    private let digests: [String: String]
    /// See ``RuleSetLoader/folderOwner``.
    private let folderOwner: (any AnyObject & Sendable)?

    init(
        rules: [RuleDefinition], revision: String, rulesDirectory: String, libraryDirectory: String,
        files: [String], loadedAt: Double, documents: [LoadedDocument] = [], digests: [String: String] = [:],
        parameters: [Parameter] = [], folderOwner: (any AnyObject & Sendable)? = nil,
        parameterChoices: ParameterChoices = ParameterChoices()
    ) {
        self.folderOwner = folderOwner
        self.parameterChoices = parameterChoices
        self.parameters = parameters
        self.documents = documents
        self.digests = digests
        self.rules = rules
        self.revision = revision
        self.rulesDirectory = rulesDirectory
        self.libraryDirectory = libraryDirectory
        self.files = files
        self.loadedAt = loadedAt
        var index: [String: Int] = [:]
        for (i, rule) in rules.enumerated() { index[rule.id] = i }
        self.index = index
    }

    /// The same rule set read from another copy of its files: its `lib/` at `libraryDirectory`,
    /// kept alive by `folderOwner` (the parameters' choices are shared: they are the same).
    func relocated(libraryDirectory: String, loadedAt: Double, folderOwner: (any AnyObject & Sendable)?) -> RuleSet {
        RuleSet(
            rules: rules, revision: revision, rulesDirectory: rulesDirectory, libraryDirectory: libraryDirectory,
            files: files, loadedAt: loadedAt, documents: documents, digests: digests, parameters: parameters,
            folderOwner: folderOwner, parameterChoices: parameterChoices)
    }

    /// The rule with id `id`.
    public func rule(_ id: String) -> RuleDefinition? {
        index[id].map { rules[$0] }
    }

    /// SHA-256 of what decides rule `id`'s behaviour: its kind, expressions, fallback, budget and
    /// the library it can import. It changes exactly when the rule (or the library) changes.
    public func digest(of id: String) -> String? {
        digests[id]
    }

    /// The parameter `owner.name`.
    public func parameter(_ name: String) -> Parameter? {
        parameters.first { $0.name == name }
    }

    /// The first 12 hex digits of the revision, for people.
    public var shortRevision: String { String(revision.prefix(12)) }

    /// How many inline tests the rules carry.
    public var testCount: Int { rules.reduce(0) { $0 + $1.tests.count } }
}
