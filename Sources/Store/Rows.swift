import Core

/// A dog and its profile, as registered.
public struct DogProfile: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var name: String
    /// `YYYY-MM-DD`, when known.
    public var birthDate: String?
    /// e.g. `4-8m`, when the birth date is not known.
    public var ageRange: String?
    public var breed: String?
    /// IANA time zone, e.g. `Europe/Berlin`.
    public var timezone: String?
    /// Portrait metrics, e.g. `{"bond": 55, "impulse_control": 22}`.
    public var metrics: JSONObject
    public var registeredAt: Double

    public init(
        id: String, userID: String, name: String, birthDate: String? = nil, ageRange: String? = nil,
        breed: String? = nil, timezone: String? = nil, metrics: JSONObject = [:], registeredAt: Double
    ) {
        self.id = id
        self.userID = userID
        self.name = name
        self.birthDate = birthDate
        self.ageRange = ageRange
        self.breed = breed
        self.timezone = timezone
        self.metrics = metrics
        self.registeredAt = registeredAt
    }

    /// The profile as rules see it.
    public var json: JSON {
        var object: JSONObject = ["id": .string(id), "user_id": .string(userID), "name": .string(name)]
        object["birth_date"] = birthDate.map(JSON.string) ?? .null
        object["age_range"] = ageRange.map(JSON.string) ?? .null
        object["breed"] = breed.map(JSON.string) ?? .null
        object["timezone"] = timezone.map(JSON.string) ?? .null
        object["metrics"] = .object(metrics)
        return .object(object)
    }
}

/// A dated fact about a dog: an observation, a behaviour marker, a weight, a prediction…
public struct ProfileRecord: Sendable, Equatable {
    public var id: Int64?
    public var dogID: String
    public var kind: String
    /// Seconds since 1970.
    public var recordedAt: Double
    /// The time as written, with its offset.
    public var recordedAtText: String
    public var payload: JSON
    /// Where it came from: `app`, `journey`, `import`, a plugin…
    public var source: String
    /// The rule set that produced it, when a rule did.
    public var ruleRevision: String?
    public var blockID: String?

    public init(
        id: Int64? = nil, dogID: String, kind: String, recordedAt: Double, recordedAtText: String, payload: JSON,
        source: String, ruleRevision: String? = nil, blockID: String? = nil
    ) {
        self.id = id
        self.dogID = dogID
        self.kind = kind
        self.recordedAt = recordedAt
        self.recordedAtText = recordedAtText
        self.payload = payload
        self.source = source
        self.ruleRevision = ruleRevision
        self.blockID = blockID
    }
}

/// An ingested event as kept, with the outcome returned for it (replayed for duplicates).
public struct StoredEvent: Sendable, Equatable {
    public var rowID: Int64?
    public var userID: String
    public var eventID: String
    public var type: String
    public var dogID: String?
    public var occurredAt: Double
    public var occurredAtText: String
    public var receivedAt: Double
    public var payload: JSON
    /// The effects, as JSON.
    public var outcome: JSON
    /// The rule revision that handled the event (nil for events kept before revisions were).
    public var ruleRevision: String?
    /// What made each effect, in the order of ``outcome``: `[{consumer, rules: [{rule,
    /// variant, experiment?}]}]`; null when there were no effects (or it was not kept).
    public var provenance: JSON
    /// ``provenance`` as compact JSON text, when the writer has it already (the ingest path
    /// keeps each origin's text, so that an event does not build and print it again); kept
    /// instead of ``provenance`` when set.
    public var provenanceText: String?
    /// ``payload`` and ``outcome`` as compact JSON text, when the writer has them already (made
    /// ahead on the threads that compute pure consumers); kept instead of those when set.
    public var payloadText: String?
    public var outcomeText: String?

    public init(
        rowID: Int64? = nil, userID: String, eventID: String, type: String, dogID: String?, occurredAt: Double,
        occurredAtText: String, receivedAt: Double, payload: JSON, outcome: JSON, ruleRevision: String? = nil,
        provenance: JSON = .null, provenanceText: String? = nil, payloadText: String? = nil,
        outcomeText: String? = nil
    ) {
        self.rowID = rowID
        self.userID = userID
        self.eventID = eventID
        self.type = type
        self.dogID = dogID
        self.occurredAt = occurredAt
        self.occurredAtText = occurredAtText
        self.receivedAt = receivedAt
        self.payload = payload
        self.outcome = outcome
        self.ruleRevision = ruleRevision
        self.provenance = provenance
        self.provenanceText = provenanceText
        self.payloadText = payloadText
        self.outcomeText = outcomeText
    }
}

/// A reminder for the app's push sender.
public struct Reminder: Sendable, Equatable {
    public var id: Int64?
    public var userID: String
    public var dogID: String?
    public var kind: String
    public var dueAt: Double
    public var payload: JSON
    /// `pending`, `sent` or `cancelled`.
    public var status: String

    public init(
        id: Int64? = nil, userID: String, dogID: String?, kind: String, dueAt: Double, payload: JSON,
        status: String = "pending"
    ) {
        self.id = id
        self.userID = userID
        self.dogID = dogID
        self.kind = kind
        self.dueAt = dueAt
        self.payload = payload
        self.status = status
    }
}

/// An analytics event waiting in the outbox.
public struct AnalyticsEvent: Sendable, Equatable {
    public var userID: String
    public var name: String
    public var occurredAt: Double
    public var properties: JSONObject

    public init(userID: String, name: String, occurredAt: Double, properties: JSONObject) {
        self.userID = userID
        self.name = name
        self.occurredAt = occurredAt
        self.properties = properties
    }
}

/// A reward given to a user.
public struct Reward: Sendable, Equatable {
    /// `xp` or `badge`.
    public var reward: String
    public var userID: String
    public var amount: Double?
    public var badgeID: String?
    public var reason: String?
    public var grantedAt: Double

    public init(reward: String, userID: String, amount: Double?, badgeID: String?, reason: String?, grantedAt: Double) {
        self.reward = reward
        self.userID = userID
        self.amount = amount
        self.badgeID = badgeID
        self.reason = reason
        self.grantedAt = grantedAt
    }
}

/// A rule set aside after it ran away: until its digest changes (or an admin lifts it), it
/// answers with its fallback — for one input (``inputKey``), or for everyone.
public struct QuarantineRecord: Sendable, Equatable {
    public var ruleID: String
    /// The rule's digest when it ran away (see `RuleSet.digest(of:)`).
    public var ruleDigest: String
    /// What happened: `timeout` (halted past its budget), `stuck` (could not be halted: the
    /// worker was ended), `crashed` (its worker died while evaluating it).
    public var reason: String
    /// SHA-256 of the input it ran away on, when known.
    public var inputDigest: String?
    /// Whose input it ran away on (`dog:<id>`, `user:<id>`, or `sha256:<input digest>`): it is
    /// set aside for that input only. Nil: for everyone (a worker crashed or got stuck on it).
    public var inputKey: String?
    /// For people: the budget, the request, what was seen.
    public var detail: String
    public var quarantinedAt: Double

    public init(
        ruleID: String, ruleDigest: String, reason: String, inputDigest: String?, inputKey: String? = nil,
        detail: String, quarantinedAt: Double
    ) {
        self.ruleID = ruleID
        self.inputKey = inputKey
        self.ruleDigest = ruleDigest
        self.reason = reason
        self.inputDigest = inputDigest
        self.detail = detail
        self.quarantinedAt = quarantinedAt
    }
}
