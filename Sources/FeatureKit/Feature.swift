import CommandKit
import Core
import Engine
import RuleEngine
import Store

/// One feature of the engine as a value: everything it plugs in. ``FeatureSet`` puts a list
/// of them together; the layers (RuleEngine, Engine, Server, the CLI) take that list and name
/// no feature themselves.
///
/// Every requirement has an empty default, so a feature declares only what it brings.
public protocol Feature: Sendable {
    /// How messages and documentation name the feature (`habits`).
    var name: String { get }
    /// The rule kinds (contracts) its rules are written in.
    var ruleKinds: [RuleKind] { get }
    /// The documents beside rules it reads from `Rules/` and `Plugins/` (catalogs, flows, …).
    var documentKinds: [any DocumentKind] { get }
    /// The documents it reads, knowing every feature's `appEvents` (to check the events a
    /// document names); `documentKinds` by default.
    func documentKinds(appEvents: [AppEvent]) -> [any DocumentKind]
    /// The event types the app sends that it consumes, each described for a PM.
    var appEvents: [AppEvent] { get }
    /// The effects its consumers (and, where it allows, rules) produce.
    var effectTypes: [EffectType] { get }
    /// Its part of the ingest path for `ruleSet`, in the order they run.
    func consumers(for ruleSet: RuleSet) -> [any EventConsumer]
    /// Sets up an evaluator that will read and write `store` (experiments choose variants).
    func prepare(_ evaluator: RuleEvaluator, store: any Store)
    /// Sets up an evaluator that only reads `reader` (when given) and writes nothing (`journey eval`).
    func prepare(_ evaluator: RuleEvaluator, reader: (any StoreReader)?)
    /// The HTTP status of each rejection code its consumers refuse events with.
    var rejectionStatuses: [String: Int] { get }
    /// What is wrong with changing `parent` (the active revision) into `candidate`, beyond what
    /// loading `candidate` alone finds (a flow's steps changed without a new version).
    func checkChange(from parent: RuleSet, to candidate: RuleSet) -> [Diagnostic]
    /// What `dog`'s screens decide right now under each of `evaluators` (read-only), by a
    /// stable key (`today.recommended`), one object per evaluator in order: what an impact
    /// preview compares between two revisions (the dog's data is read once for all of them).
    func previewDecisions(dog: String, store: any StoreReader, evaluators: [RuleEvaluator], now: Double) throws
        -> [JSONObject]
    /// Its HTTP routes.
    var routes: [FeatureRoute] { get }
    /// Its part of the OpenAPI document (see ``OpenAPIDocument``): nil for a feature without routes.
    func openAPI() throws(OpenAPIDocument.Failure) -> JSON?
    /// Its `journey` subcommands.
    var commands: [any Command.Type] { get }
    /// The overview of each command group it adds (`habits` → "Show a user's habit trackers…").
    var commandGroups: [String: String] { get }
    /// What `journey serve` runs periodically for it.
    var jobs: [FeatureJob] { get }
    /// The migrations that make its tables, named `<feature>.1`, `<feature>.2`… in the order they
    /// run (after the store layers' and the features' listed before it: see ``Schema``).
    var migrations: [Migration] { get }
    /// What its routes run in a child process (see ``IsolatedJob``).
    var isolatedJobs: [IsolatedJob] { get }
    /// The text keys its code renders (`Rules/locales/*.yaml`): `journey check` refuses a rule
    /// set whose locales lack one, `journey texts` shows what uses each.
    var texts: [TextUse] { get }
    /// The text keys its rule files use without naming them (the Dog Journey catalog's texts,
    /// keyed by their place in the catalog), for `journey texts`.
    func textUses(in ruleSet: RuleSet) -> [TextUse]
}

extension Feature {
    public var ruleKinds: [RuleKind] { [] }
    public var documentKinds: [any DocumentKind] { [] }
    public func documentKinds(appEvents: [AppEvent]) -> [any DocumentKind] { documentKinds }
    public var appEvents: [AppEvent] { [] }
    public var effectTypes: [EffectType] { [] }
    public func consumers(for ruleSet: RuleSet) -> [any EventConsumer] { [] }
    public func prepare(_ evaluator: RuleEvaluator, store: any Store) {}
    public func prepare(_ evaluator: RuleEvaluator, reader: (any StoreReader)?) {}
    public var rejectionStatuses: [String: Int] { [:] }
    public func checkChange(from parent: RuleSet, to candidate: RuleSet) -> [Diagnostic] { [] }
    public func previewDecisions(dog: String, store: any StoreReader, evaluators: [RuleEvaluator], now: Double) throws
        -> [JSONObject]
    { evaluators.map { _ in [:] } }
    public var routes: [FeatureRoute] { [] }
    public func openAPI() throws(OpenAPIDocument.Failure) -> JSON? { nil }
    public var commands: [any Command.Type] { [] }
    public var commandGroups: [String: String] { [:] }
    public var jobs: [FeatureJob] { [] }
    public var migrations: [Migration] { [] }
    public var isolatedJobs: [IsolatedJob] { [] }
    public var texts: [TextUse] { [] }
    public func textUses(in ruleSet: RuleSet) -> [TextUse] { [] }
}
