import Core
import JQ
import YAML

/// A kind of document, other than rules, that features keep in `Rules/` or `Plugins/`: a
/// journey catalog, wording rules, a check plugin… Features register their kinds with the
/// loader; the loader reads every file, dispatches each document by its top-level key, and
/// reports every problem in the same pass as the rules'.
public protocol DocumentKind: Sendable {
    /// The top-level key that marks a document of this kind (`catalog`, `plugin`, …).
    var key: String { get }
    /// Decodes one document, reporting problems through `file`; nil when it cannot be used.
    func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument?
    /// Checks all documents of this kind against the rest of the rule set once every rule is
    /// compiled (references to rules, content that rules must accept, wording…).
    func check(_ documents: [LoadedDocument], in context: DocumentCheckContext)
}

extension DocumentKind {
    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {}
}

/// What a document decoded to: its value, and any rules it declares (a plugin's jq).
public struct DecodedDocument: Sendable {
    public var value: any Sendable
    public var rules: [RuleDefinition]

    public init(value: any Sendable, rules: [RuleDefinition] = []) {
        self.value = value
        self.rules = rules
    }
}

/// A document of a registered kind, as loaded.
public struct LoadedDocument: Sendable {
    public var key: String
    /// Where its top-level mapping starts.
    public var location: SourceLocation
    public var value: any Sendable
}

/// One file being decoded: where things are, and where problems go.
public final class DocumentFile {
    /// The display path.
    public let path: String
    let lines: [Substring]
    let collector: DiagnosticCollector
    let readFixture: RuleFileDecoder.FixtureReader
    let ruleKinds: RuleKinds
    /// The document's parameters, which its rules read.
    let parameterScope: ParameterScope

    init(
        path: String, lines: [Substring], collector: DiagnosticCollector,
        readFixture: @escaping RuleFileDecoder.FixtureReader, ruleKinds: RuleKinds, parameterScope: ParameterScope
    ) {
        self.parameterScope = parameterScope
        self.path = path
        self.lines = lines
        self.collector = collector
        self.readFixture = readFixture
        self.ruleKinds = ruleKinds
    }

    /// Where `node` starts.
    public func location(_ node: YAMLNode) -> SourceLocation {
        SourceLocation(file: path, node.start)
    }

    /// The fields of a mapping, checked against `allowed`; nil (with a diagnostic) when `node`
    /// is not a mapping.
    public func fields(_ node: YAMLNode, what: String, allowed: [String]) -> YAMLFields? {
        YAMLFields(node, file: path, what: what, allowed: allowed, collector: collector)
    }

    /// `node` as JSON, by the one strict conversion (``YAML/YAMLNode/json(path:)``); nil, with
    /// the problem reported as `invalid_value` at its line and column, when it cannot be JSON.
    public func json(_ node: YAMLNode, path: String = ".") -> JSON? {
        do {
            return try node.json(path: path)
        } catch {
            collector.error("invalid_value", error.message, at: SourceLocation(file: self.path, error.mark))
            return nil
        }
    }

    public func error(_ code: String, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        collector.error(code, message, at: location, notes: notes)
    }

    public func warning(_ code: String, _ message: String, at location: SourceLocation) {
        collector.warning(code, message, at: location)
    }

    /// A jq expression field of `fields`, mapped back to this file for libjq's messages.
    public func expression(_ fields: YAMLFields, _ key: String) -> Expression? {
        fields.expression(key, lines: lines)
    }

    /// The rules of a `rules:` list inside the document.
    public func decodeRules(_ list: YAMLNode) -> [RuleDefinition] {
        guard let items = list.items else {
            error("invalid_type", "`rules` must be a list of rules, found a \(list.kindName)", at: location(list))
            return []
        }
        let decoder = RuleFileDecoder(
            file: path, lines: lines, collector: collector, readFixture: readFixture, kinds: ruleKinds,
            documentScope: parameterScope)
        return items.compactMap(decoder.decodeRule)
    }
}

/// What document kinds see once every rule is compiled.
public final class DocumentCheckContext {
    public let ruleSet: RuleSet
    /// An evaluator over the rule set, for checks that run rules (a plugin's content check).
    public let evaluator: RuleEvaluator
    let collector: DiagnosticCollector
    /// The literals of every rule that name something (``RuleSet/literals``), found once for
    /// all the checks that read them.
    public private(set) lazy var ruleLiterals: [RuleLiteral] = ruleSet.literals

    init(ruleSet: RuleSet, evaluator: RuleEvaluator, collector: DiagnosticCollector) {
        self.ruleSet = ruleSet
        self.evaluator = evaluator
        self.collector = collector
    }

    /// The values of every loaded document of type `T`.
    public func documents<T>(of type: T.Type) -> [T] {
        ruleSet.documents(of: type)
    }

    public func error(_ code: String, _ message: String, at location: SourceLocation, rule: String? = nil) {
        collector.error(code, message, at: location, rule: rule)
    }
}

extension RuleSet {
    /// The values of every loaded document of type `T`, in file order.
    public func documents<T>(of type: T.Type) -> [T] {
        documents.compactMap { $0.value as? T }
    }
}
