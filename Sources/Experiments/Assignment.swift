import Core
import JQ
import RuleEngine
import Store

/// Which variation of an experiment a subject gets, and why.
public struct Assignment: Sendable, Equatable {
    public enum Reason: String, Sendable {
        /// Assigned now by the hash.
        case assigned
        /// The kept assignment (weights may have changed since; it stays).
        case sticky
        /// The kept assignment was of a lower bucket version: assigned again by the hash.
        case reassigned
        case inactive
        case notStarted = "not_started"
        case ended
        /// The hash fell outside every variation's range (coverage below 1).
        case outsideCoverage = "outside_coverage"
        /// The subject has no value for the experiment's hash attribute.
        case missingAttribute = "missing_attribute"
        case unknownExperiment = "unknown_experiment"
        /// The experiment is concluded: everyone gets its winner.
        case concluded

        /// In words, for `journey assign`.
        public var explanation: String {
            switch self {
            case .assigned: "assigned by the hash (no assignment was kept)"
            case .sticky: "sticky: the kept assignment stands, whatever the weights say now"
            case .reassigned: "reassigned: the kept assignment is of a lower bucket version"
            case .inactive: "the experiment is not active: everyone gets the default"
            case .notStarted: "the experiment has not started: everyone gets the default"
            case .ended: "the experiment has ended: everyone gets the default"
            case .outsideCoverage: "outside coverage: the hash is in no variation's range, so the default applies"
            case .missingAttribute: "the subject has no value for the experiment's hash attribute"
            case .unknownExperiment: "no experiment has this key"
            case .concluded: "the experiment is concluded: everyone gets the winner"
            }
        }
    }

    public var experiment: String
    /// The variation, or nil for the default (not in the experiment).
    public var variation: String?
    public var reason: Reason
    /// The hash attribute's value that was hashed.
    public var subjectValue: String?
    /// The exact GrowthBook hash, when it was computed.
    public var hashValue: Double?
    /// The range the hash fell in, when it fell in one.
    public var range: GrowthBook.BucketRange?
    public var bucketVersion: Int?
    /// When the kept assignment was made (for sticky ones).
    public var assignedAt: Double?
    /// When the kept assignment was first used (`experiment_viewed`); nil if never.
    public var viewedAt: Double?

    /// The assignment as `journey assign --format json` shows it.
    public var json: JSON {
        var object: JSONObject = ["experiment": .string(experiment)]
        object["variation"] = variation.map(JSON.string) ?? .null
        object["in_experiment"] = .bool(variation != nil)
        object["reason"] = .string(reason.rawValue)
        object["why"] = .string(reason.explanation)
        object["subject"] = subjectValue.map(JSON.string) ?? .null
        object["hash_value"] = hashValue.map(JSON.number) ?? .null
        object["range"] = range.map { .array([.number($0.start), .number($0.end)]) } ?? .null
        object["bucket_version"] = bucketVersion.map { .number(Double($0)) } ?? .null
        object["assigned_at"] = assignedAt.map { .string(Timestamp.format($0)) } ?? .null
        object["viewed_at"] = viewedAt.map { .string(Timestamp.format($0)) } ?? .null
        return .object(object)
    }
}
