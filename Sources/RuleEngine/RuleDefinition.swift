import Core
import JQ

/// One rule as loaded from its file: validated, not compiled (compiled programs belong to a
/// thread; see ``RuleEvaluator``).
public struct RuleDefinition: Sendable {
    /// The rule's id, unique in the rule set.
    public var id: String
    public var kind: RuleKind
    public var description: String?
    /// Where `rule:` is written.
    public var location: SourceLocation
    /// The experiment choosing among ``variants``; nil for a single-expression rule.
    public var experiment: String?
    /// The expressions; a single-expression rule has one variant, named ``defaultVariantName``.
    /// The first variant is the default (the control).
    public var variants: [Variant]
    /// Evaluated instead when the rule fails or is quarantined.
    public var fallback: Expression?
    /// The most CPU time (of the evaluating thread) one evaluation may use before it is stopped.
    public var budget: Duration
    /// For event-driven kinds: the event types the rule reacts to; for any other event it gives
    /// the kind's empty value without being evaluated. Nil means every event.
    public var events: [String]?
    /// What the rule reads of its kind's selectable lists (`reads:`); nil: all of its input.
    public var reads: InputSelection?
    public var tests: [RuleTest]
    /// The values of the parameters it reads as `$params.NAME` (its own `params:`, or those of
    /// the document it belongs to), as jq reads them; nil when none are declared.
    public var parameters: JSONObject?
    /// Where fields of the rule are written `$params.NAME`: field (`reads.within`) → parameter.
    /// A test that sets parameters gets these fields from its own values.
    public var parameterFields: [String: String] = [:]

    /// A rule built by a feature from its own documents (an onboarding step's trigger).
    public init(
        id: String, kind: RuleKind, description: String? = nil, location: SourceLocation, experiment: String? = nil,
        variants: [Variant], fallback: Expression? = nil, budget: Duration = RuleDefinition.defaultBudget,
        events: [String]? = nil, reads: InputSelection? = nil, tests: [RuleTest] = []
    ) {
        self.id = id
        self.kind = kind
        self.description = description
        self.location = location
        self.experiment = experiment
        self.variants = variants
        self.fallback = fallback
        self.budget = budget
        self.events = events
        self.reads = reads
        self.tests = tests
    }

    /// The variant name of a single-expression rule.
    public static let defaultVariantName = "default"
    /// The budget of a rule that does not set `budget:`.
    public static let defaultBudget: Duration = .milliseconds(250)

    /// The variant used when none is asked for: the first one.
    public var defaultVariant: Variant { variants[0] }

    /// The variant called `name`.
    public func variant(named name: String) -> Variant? {
        variants.first { $0.name == name }
    }

    /// Whether the rule has named variants chosen by an experiment.
    public var hasVariants: Bool { experiment != nil }

    /// The rule with other parameter values (a test's): its programs and the fields written
    /// `$params.NAME` that the engine reads (`reads.within`) take them.
    public func with(parameters values: JSONObject) -> RuleDefinition {
        var rule = self
        rule.parameters = values
        if let name = parameterFields["reads.within"], let seconds = values[name]?.numberValue {
            rule.reads?.within = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        return rule
    }

    /// A program of the rule as it is compiled: its text, and the constants bound for it.
    ///
    /// A program that names `$params` gets it (an empty object when the rule declares none, so
    /// that `journey check` names the undeclared parameter rather than libjq an undefined
    /// variable). Each `$params.NAME` of a declared parameter, written in one piece, is read
    /// from a variable of its own, `$__p_NAME`, padded to the same length so that libjq's columns
    /// still match the rule's: libjq 1.6 inlines the variables as constants, and reading one
    /// costs what a literal costs instead of a look-up in the `$params` object.
    public func program(for source: String) -> (source: String, constants: JSONObject) {
        guard parameters != nil || source.contains("params") else { return (source, [:]) }
        let values = parameters ?? [:]
        var constants: JSONObject = ["params": .object(values)]
        var bytes = Array(source.utf8)
        for read in JQVariableReads.find("params", in: source).reversed() {
            guard let name = read.field, let value = values[name], let span = read.span,
                span.count == "$params.".utf8.count + name.utf8.count
            else { continue }
            let variable = Self.parameterVariable + name
            constants[variable] = value
            bytes.replaceSubrange(span, with: Array(("$" + variable + "   ").utf8))
        }
        return (String(decoding: bytes, as: UTF8.self), constants)
    }

    /// The prefix of the variable each parameter is read from in compiled programs.
    static let parameterVariable = "__p_"

    /// SHA-256 of what decides the rule's behaviour, with the library's hash.
    func digest(libraryHash: String) -> String {
        var hasher = SHA256()
        hasher.update("\(id)\u{0}\(kind.name)\u{0}\(budget)\u{0}\(events ?? [])\u{0}\(libraryHash)\u{0}")
        for variant in variants { hasher.update("\(variant.name)\u{0}\(variant.expression.source)\u{0}") }
        hasher.update("fallback\u{0}\(fallback?.source ?? "")")
        // Only rules that narrow their input say so, so that the others keep their digests.
        if let reads { hasher.update("\u{0}reads\u{0}\(reads.description)") }
        // Parameter values are compiled into the programs: a new value is a new program.
        if let parameters { hasher.update("\u{0}params\u{0}\(JSON.object(parameters).compactText)") }
        return hasher.finalizeHex()
    }
}

/// A named jq expression of a rule.
public struct Variant: Sendable {
    public var name: String
    public var expression: Expression

    public init(name: String, expression: Expression) {
        self.name = name
        self.expression = expression
    }
}

/// jq text and where it sits in its file, so that libjq's line numbers map back to the file.
public struct Expression: Sendable {
    public var source: String
    /// Where the scalar holding the text starts (for a block scalar, its `|` or `>`).
    public var start: SourceLocation
    /// True for a block scalar: its line 1 is the line after `start`.
    public var isBlock: Bool
    /// For a block scalar, the column where its content starts; otherwise where the text starts.
    public var contentColumn: Int

    public init(source: String, start: SourceLocation, isBlock: Bool, contentColumn: Int) {
        self.source = source
        self.start = start
        self.isBlock = isBlock
        self.contentColumn = contentColumn
    }

    /// The file position of `line` (1-based, in `source`); `column` when libjq gave one.
    public func location(line: Int?, column: Int?) -> SourceLocation {
        guard let line, line >= 1 else {
            return SourceLocation(file: start.file, line: start.line, column: contentColumn)
        }
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let text = line <= lines.count ? lines[line - 1] : ""
        let indent = text.prefix { $0 == " " }.count
        let fileLine = isBlock ? start.line + line : start.line + (line - 1)
        let offset = column.map { $0 - 1 } ?? indent
        return SourceLocation(file: start.file, line: fileLine, column: contentColumn + offset)
    }
}

/// An inline test of a rule.
public struct RuleTest: Sendable {
    public enum Expectation: Sendable, Equatable {
        /// The rule's result (its one output, or the kind's value for none).
        case value(JSON)
        /// Every output, in order.
        case outputs([JSON])
        /// The evaluation fails; the text is part of the message, or the error's code.
        case error(String)
    }

    public var name: String
    public var location: SourceLocation
    public var input: JSON
    /// The fixture the input was read from, when `input_file` was used (display path).
    public var inputFile: String?
    public var variant: String?
    /// What `now` returns, seconds since 1970; nil means the clock.
    public var now: Double?
    public var expectation: Expectation
    /// Whether the test evaluates the rule's `fallback` instead of its expression.
    public var usesFallback: Bool
    /// The parameter values the test evaluates with (its `params:` over the revision's), as jq
    /// reads them; nil: the revision's.
    public var parameters: JSONObject? = nil
}
