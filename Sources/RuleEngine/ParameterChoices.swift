import Synchronization

/// The names a parameter of a reference type may take, as the features that own them know them
/// (the Dog Journey: every catalog's blocks for `block_id`, its branches for `branch_id`).
/// Features give them while the rule set is checked (``DocumentCheckContext/offerChoices(_:for:)``);
/// forms and lists read them after.
///
/// `Sendable`: the names are behind a mutex; they are set during the load, read afterwards.
public final class ParameterChoices: Sendable {
    private let names = Mutex<[String: [String]]>([:])

    init() {}

    /// The names of `type` (`block_id`, `branch_id`), in the order they were given; nil when no
    /// feature gave any.
    public func names(of type: ParameterType) -> [String]? {
        names.withLock { $0[type.name] }
    }

    func set(_ values: [String], for type: ParameterType) {
        names.withLock { $0[type.name] = values }
    }
}

extension DocumentCheckContext {
    /// Gives the names a parameter of `type` may take (what a form offers, what `journey params`
    /// lists as its range).
    public func offerChoices(_ names: [String], for type: ParameterType) {
        ruleSet.parameterChoices.set(names, for: type)
    }
}
