import Core

/// A list in a kind's input that a rule may narrow with `reads:` to the elements it reads
/// (the records of some kinds), so the engine neither reads nor builds the others.
public struct SelectableInput: Sendable {
    /// The input member holding the list: `records`.
    public var member: String
    /// The element's member whose value selects it: `kind`.
    public var key: String
    /// What the values name, for messages: "record kinds".
    public var what: String

    public init(member: String, key: String, what: String) {
        self.member = member
        self.key = key
        self.what = what
    }
}

/// What a rule declared it reads (`reads: {records: [weight], events: []}`): per selectable
/// list, the values of its key that reach the rule. A list not named reaches it whole.
///
/// The selection narrows the kind's window, never widens it: the rule sees exactly the
/// elements it saw without `reads:` whose key has one of the values, so a rule that reads
/// only what it declares gives the same result. Inline tests and `journey eval` apply it to
/// their input, so a rule that reads more than it declares fails its tests.
public struct InputSelection: Sendable, Equatable, CustomStringConvertible {
    /// Member → the values of its key that are kept (empty: none of the list).
    public var members: [String: Set<String>]

    public init(_ members: [String: Set<String>]) {
        self.members = members
    }

    /// The values kept of list `member`; nil when the rule reads all of it.
    public func values(of member: String) -> Set<String>? {
        members[member]
    }

    /// `events: []; records: [weight]`, members and values sorted: part of the rule's digest.
    public var description: String {
        members.keys.sorted().map { "\($0): [\(members[$0]!.sorted().joined(separator: ", "))]" }
            .joined(separator: "; ")
    }

    /// `input` with each selected list narrowed, for the kind's `selectable` lists.
    public func apply(to input: JSON, selectable: [SelectableInput]) -> JSON {
        guard case .object(var object) = input else { return input }
        for list in selectable {
            guard let kept = members[list.member], case .array(let elements)? = object[list.member] else { continue }
            object[list.member] = .array(
                elements.filter { element in element[list.key]?.stringValue.map(kept.contains) ?? false })
        }
        return .object(object)
    }
}

extension RuleDefinition {
    /// The rule's input as the engine gives it: `input` narrowed by the rule's `reads:`.
    public func selectingInput(_ input: JSON) -> JSON {
        reads?.apply(to: input, selectable: kind.selectableInputs) ?? input
    }
}
