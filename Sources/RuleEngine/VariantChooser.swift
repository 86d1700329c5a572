/// Whom an experiment assigns: the attributes experiments hash (`user_id`, `dog_id`).
public struct ExperimentSubject: Sendable, Hashable {
    public var userID: String?
    public var dogID: String?

    public init(userID: String? = nil, dogID: String? = nil) {
        self.userID = userID
        self.dogID = dogID
    }

    /// The value of hash attribute `name`, if the subject has it.
    public func attribute(_ name: String) -> String? {
        switch name {
        case "user_id": userID
        case "dog_id": dogID
        default: nil
        }
    }
}

/// Picks a subject's variation of an experiment (the experiments feature's sticky
/// assignment): rules with an `experiment:` evaluate that variant. Nil means the default (the
/// control).
public protocol VariantChooser: AnyObject {
    func variation(of experiment: String, subject: ExperimentSubject, now: Double) throws -> String?
    /// One line saying which variation the subject gets and why (for traces), writing nothing.
    func explanation(of experiment: String, subject: ExperimentSubject, now: Double) throws -> String?
    /// The subjects of the batch being written (its users and dogs): what their variations
    /// depend on may be read for all of them at once, when first needed, and kept for the write
    /// transaction, so that the batch waits for none of it one by one.
    func keepReads(for subjects: [ExperimentSubject])
}

extension VariantChooser {
    public func explanation(of experiment: String, subject: ExperimentSubject, now: Double) throws -> String? { nil }
    public func keepReads(for subjects: [ExperimentSubject]) {}
}
