import Core
import JQ

/// The contract a rule fulfils: what its input `.` holds and what it must output.
///
/// The engine's own kinds are ``RuleKind/registry``; each feature declares its own, and the
/// loader takes them all (``RuleSetLoader/ruleKinds``).
public final class RuleKind: Sendable {
    /// How many outputs a rule of this kind may produce.
    public enum Cardinality: Sendable, Equatable {
        /// Exactly one output.
        case one
        /// One output or none; none means `whenEmpty`.
        case atMostOne(whenEmpty: JSON)
        /// Any number of outputs (the result is the list of them).
        case many
    }

    /// A member the input object must have, and the jq type of its value.
    public struct Member: Sendable {
        public var name: String
        public var type: JV.Kind

        public init(_ name: String, _ type: JV.Kind) {
            self.name = name
            self.type = type
        }
    }

    public let name: String
    /// One line on what rules of this kind decide.
    public let summary: String
    /// What `.` holds, in words.
    public let inputDescription: String
    /// Members the input object must have; empty with `inputIsObject == false` means anything.
    public let requiredMembers: [Member]
    public let inputIsObject: Bool
    /// What the output must be, in words.
    public let outputDescription: String
    public let cardinality: Cardinality
    /// Nil when `output` fits the contract, else what is wrong with it.
    public let checkOutput: @Sendable (JSON) -> String?
    /// A quick look at one output as libjq gave it: true only for an output ``checkOutput``
    /// accepts too. It lets callers that read a little of a large result
    /// (``RuleEvaluator/evaluate(_:input:options:reading:)``) skip converting it to ``JSON``;
    /// for any other output (or without it) the output is converted and ``checkOutput`` decides
    /// and says what is wrong.
    public let acceptsOutput: (@Sendable (JV) -> Bool)?
    /// For kinds whose input is (or holds) an app event: the path of the event's type, so a
    /// rule can name the `events` it reacts to and skip the others without being evaluated.
    public let eventTypePath: [String]?
    /// For kinds whose output names something of the input (a recommendation names one of
    /// `.blocks`): nil when `output` names something `input` has, else the name that `input`
    /// lacks, described ("block id `x`, which is not a block of its input"). Inline
    /// tests apply it to every result and expectation; at run time the caller, who knows what
    /// exists, passes its own ``EvaluationOptions/outputCheck``.
    public let checkOutputAgainstInput: (@Sendable (_ output: JSON, _ input: JSON) -> String?)?
    /// The lists of the input a rule may narrow with `reads:` (empty: `reads:` is refused).
    public let selectableInputs: [SelectableInput]

    public init(
        name: String, summary: String, inputDescription: String, requiredMembers: [Member], inputIsObject: Bool,
        outputDescription: String, cardinality: Cardinality, checkOutput: @escaping @Sendable (JSON) -> String?,
        eventTypePath: [String]? = nil,
        checkOutputAgainstInput: (@Sendable (_ output: JSON, _ input: JSON) -> String?)? = nil,
        selectableInputs: [SelectableInput] = [], acceptsOutput: (@Sendable (JV) -> Bool)? = nil
    ) {
        self.name = name
        self.summary = summary
        self.inputDescription = inputDescription
        self.requiredMembers = requiredMembers
        self.inputIsObject = inputIsObject
        self.outputDescription = outputDescription
        self.cardinality = cardinality
        self.checkOutput = checkOutput
        self.eventTypePath = eventTypePath
        self.checkOutputAgainstInput = checkOutputAgainstInput
        self.selectableInputs = selectableInputs
        self.acceptsOutput = acceptsOutput
    }

    /// Nil when `input` fits the contract, else what is wrong with it.
    public func checkInput(_ input: JV) -> String? {
        checkInput(input, keys: requiredMembers.map { JV(JSON.string($0.name)) })
    }

    /// Like ``checkInput(_:)``, with the member names already built as libjq strings.
    func checkInput(_ input: JV, keys: [JV]) -> String? {
        guard inputIsObject else { return nil }
        guard input.kind == .object else {
            return "input must be an object (\(inputDescription)), got \(input.kind.rawValue)"
        }
        // By index, so that a member's name is only read to describe a problem.
        for index in 0..<min(keys.count, requiredMembers.count) {
            let kind = input.memberKind(keys[index])
            guard kind != requiredMembers[index].type else { continue }
            let member = requiredMembers[index]
            guard let kind else { return "input has no `\(member.name)` (\(inputDescription))" }
            let type = member.type.rawValue
            return "input `.\(member.name)` must be \(article(type)) \(type), got \(kind.rawValue)"
        }
        return nil
    }
}

private func article(_ word: String) -> String {
    word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
}

extension RuleKind {
    /// The engine's own kinds; features bring theirs (``RuleKinds``), and `journey rules --kinds`
    /// lists them all.
    public static let registry: [RuleKind] = [
        RuleKind(
            name: "event_effects",
            summary: "What an app event leads to: records, reminders, analytics, rewards.",
            inputDescription: "{event, dog}: the event as ingested, and its dog's profile or null",
            requiredMembers: [Member("event", .object)], inputIsObject: true,
            outputDescription: "an array of effect objects ({type: record_added, …}); no output means none",
            cardinality: .atMostOne(whenEmpty: []),
            checkOutput: { output in
                guard case .array(let effects) = output else { return "expected an array of effect objects" }
                if let bad = effects.firstIndex(where: { $0["type"]?.stringValue == nil }) {
                    return
                        "expected every effect to be an object with a `type`, element \(bad) is \(effects[bad].truncatedText(60))"
                }
                return nil
            },
            eventTypePath: ["event", "type"]),
        RuleKind(
            name: "value",
            summary: "Any computation; no contract.",
            inputDescription: "anything",
            requiredMembers: [], inputIsObject: false,
            outputDescription: "any values; the result is the list of outputs",
            cardinality: .many,
            checkOutput: { _ in nil }),
    ]

    /// Checks a candidate result (a test's `expect`) against the contract.
    public func checkResult(_ value: JSON) -> String? {
        if case .atMostOne(let whenEmpty) = cardinality, value == whenEmpty { return nil }
        return checkOutput(value)
    }
}

/// The rule kinds one load knows, by name.
public struct RuleKinds: Sendable {
    /// In the order documentation lists them.
    public let all: [RuleKind]
    private let byName: [String: RuleKind]

    /// A table of `kinds`; of two kinds with one name, the first counts.
    public init(_ kinds: [RuleKind]) {
        all = kinds
        byName = Dictionary(kinds.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The kind called `name`, if known.
    public func named(_ name: String) -> RuleKind? { byName[name] }
}
