import Core
import Foundation

/// A list in a kind's input that a rule may narrow with `reads:` to the elements it reads
/// (the records of some kinds, those of a recent time), so the engine neither reads nor builds
/// the others.
public struct SelectableInput: Sendable {
    /// The input member holding the list: `records`.
    public var member: String
    /// The element's member whose value selects it: `kind`.
    public var key: String
    /// What the values name, for messages: "record kinds".
    public var what: String
    /// The element's members that tell its time, tried in order: a number is seconds since
    /// 1970, a string an ISO 8601 date-time (`recorded_ts`, then `recorded_at`). Empty: the
    /// list has no time and `within` leaves it whole.
    public var timeKeys: [String]

    public init(member: String, key: String, what: String, timeKeys: [String] = []) {
        self.member = member
        self.key = key
        self.what = what
        self.timeKeys = timeKeys
    }

    /// The element's time in seconds, by ``timeKeys``; nil when none of them tells it.
    public func time(of element: JSON) -> Double? {
        for key in timeKeys {
            switch element[key] {
            case .number(let seconds)?: return seconds
            case .string(let text)?: if let seconds = Timestamp.parse(text) { return seconds }
            default: continue
            }
        }
        return nil
    }
}

/// What a rule declared it reads (`reads: {records: [weight], events: [], within: 30d}`): per
/// selectable list, the values of its key that reach the rule (a list not named reaches it
/// whole), and with `within` only the elements of that time up to the evaluation's `now` (and
/// any later).
///
/// The selection narrows the kind's window, never widens it: the rule sees exactly the
/// elements it saw without `reads:` whose key has one of the values and whose time is at or
/// after `now − within`, so a rule that reads only what it declares gives the same result.
/// Inline tests and `journey eval` apply it to their input (with their `now`), so a rule that
/// reads more than it declares fails its tests.
public struct InputSelection: Sendable, Equatable, CustomStringConvertible {
    /// Member → the values of its key that are kept (empty: none of the list).
    public var members: [String: Set<String>]
    /// How far back from `now` the timed lists reach; nil: their whole window.
    public var within: Duration?

    public init(_ members: [String: Set<String>], within: Duration? = nil) {
        self.members = members
        self.within = within
    }

    /// The values kept of list `member`; nil when the rule reads all of it.
    public func values(of member: String) -> Set<String>? {
        members[member]
    }

    /// The earliest time a timed list keeps for an evaluation at `now`, in seconds since 1970
    /// (computed as a rule computes `$now - $days * 86400`); nil without `within`.
    public func since(now: Double) -> Double? {
        within.map { now - $0.seconds }
    }

    /// `events: []; records: [weight]; within: 30d`, members and values sorted: part of the
    /// rule's digest (a selection without `within` keeps the text it had before there was one).
    public var description: String {
        let lists = members.keys.sorted().map { "\($0): [\(members[$0]!.sorted().joined(separator: ", "))]" }
        return (lists + (within.map { ["within: \(DurationText.format($0))"] } ?? [])).joined(separator: "; ")
    }

    /// `input` with each selected list narrowed, for the kind's `selectable` lists, as the
    /// engine narrows it for an evaluation at `now`. An element whose time cannot be read
    /// (a fixture without one) is kept: the engine's rows always have one.
    public func apply(to input: JSON, selectable: [SelectableInput], now: Double) -> JSON {
        guard case .object(var object) = input else { return input }
        let since = since(now: now)
        for list in selectable {
            let kept = members[list.member]
            let from = list.timeKeys.isEmpty ? nil : since
            guard kept != nil || from != nil, case .array(let elements)? = object[list.member] else { continue }
            object[list.member] = .array(
                elements.filter { element in
                    if let kept, !(element[list.key]?.stringValue.map(kept.contains) ?? false) { return false }
                    if let from, let at = list.time(of: element), at < from { return false }
                    return true
                })
        }
        return .object(object)
    }
}

extension RuleDefinition {
    /// The `now` an evaluation of this rule is narrowed and run at: `given`, else, when the rule
    /// reads a time window (`within`), one reading of the clock, so that both use the same time;
    /// nil otherwise (the evaluation reads the clock).
    public func evaluationNow(_ given: Double?) -> Double? {
        given ?? (reads?.within == nil ? nil : Date().timeIntervalSince1970)
    }

    /// The rule's input as the engine gives it for an evaluation at `now` (nil: the clock's
    /// time; pass ``evaluationNow(_:)``): `input` narrowed by the rule's `reads:`.
    public func selectingInput(_ input: JSON, now: Double?) -> JSON {
        reads?.apply(to: input, selectable: kind.selectableInputs, now: now ?? Date().timeIntervalSince1970) ?? input
    }
}
