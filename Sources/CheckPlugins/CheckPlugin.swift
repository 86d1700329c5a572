import Core
import Engine
import JQ
import RuleEngine
import Store

/// A check type of the Dog Journey (`self_screen`, `hands_on`, `predict`, …): it validates a
/// user's answer against a block's check and turns it into dated profile records.
///
/// Write one in Swift (conform to this protocol and register it), or declare one in a
/// `Plugins/*.yaml` file with jq rules (``RulePlugin``), which needs no redeploy.
public protocol CheckPlugin: Sendable {
    /// The check type, as blocks name it.
    var type: String { get }
    /// One line on what the check does.
    var summary: String { get }
    /// Problems with a block's check `content` (empty when it is fine), for `journey check`.
    func problems(in content: JSON, evaluator: RuleEvaluator) -> [String]
    /// The outcome of `answer`.
    /// - Throws: ``Rejection`` `invalid`, naming the field and the allowed values; nothing is
    ///   recorded then.
    func outcome(of answer: JSON, content: JSON, context: CheckContext, evaluator: RuleEvaluator) throws -> CheckOutcome
}

/// What a plugin knows about the answer's circumstances.
public struct CheckContext: Sendable {
    public var dog: DogProfile
    public var blockID: String
    /// When the answer was given (the event's time), seconds since 1970 and as sent.
    public var occurredAt: Double
    public var occurredAtText: String
    /// The local date-time of the answer in the dog's time zone, `YYYY-MM-DDTHH:MM`.
    public var localTime: String
    /// The records this block's checks kept before, oldest first: `{kind, recorded_at,
    /// payload}` (a predict check's guess, before its measurement); the newest
    /// ``recordWindow`` of them.
    public var earlierRecords: [JSON]
    /// The `check_answer` kind's window: a rule sees at most this many earlier records.
    public static let recordWindow = 100

    public init(
        dog: DogProfile, blockID: String, occurredAt: Double, occurredAtText: String, localTime: String,
        earlierRecords: [JSON] = []
    ) {
        self.earlierRecords = earlierRecords
        self.dog = dog
        self.blockID = blockID
        self.occurredAt = occurredAt
        self.occurredAtText = occurredAtText
        self.localTime = localTime
    }
}

/// What an answer leads to.
public struct CheckOutcome: Sendable, Equatable {
    /// Records to add: `kind` and `payload` (the engine dates them and names the source).
    public var records: [(kind: String, payload: JSONObject)]
    /// Whether the check step is done (false: the block stays open, e.g. "remind me later").
    public var completesCheck: Bool
    /// What to tell the user, if anything: a text, or a locale text's key with its arguments
    /// (a ``DeferredText``, `{"$text": KEY, "args": {…}}`), rendered in the reader's locale
    /// when the result is shown.
    public var interpretation: JSON?
    /// A reminder to schedule: `kind`, `text`, and either a local time (`19:00`, in the dog's
    /// time zone) or a duration from now.
    public var reminder: ReminderRequest?
    /// Extra properties for the `check_completed` analytics event (e.g. the predict delta).
    public var analytics: JSONObject

    public init(
        records: [(kind: String, payload: JSONObject)], completesCheck: Bool, interpretation: JSON? = nil,
        reminder: ReminderRequest? = nil, analytics: JSONObject = [:]
    ) {
        self.records = records
        self.completesCheck = completesCheck
        self.interpretation = interpretation
        self.reminder = reminder
        self.analytics = analytics
    }

    public static func == (lhs: CheckOutcome, rhs: CheckOutcome) -> Bool {
        lhs.records.map(\.kind) == rhs.records.map(\.kind) && lhs.records.map(\.payload) == rhs.records.map(\.payload)
            && lhs.completesCheck == rhs.completesCheck && lhs.interpretation == rhs.interpretation
            && lhs.reminder == rhs.reminder && lhs.analytics == rhs.analytics
    }
}

/// A reminder a plugin asks for.
public struct ReminderRequest: Sendable, Equatable {
    public var kind: String
    /// The push's text: a locale text's key with its arguments (a ``DeferredText``), written
    /// in the recipient's locale when the push is read, or a text as is.
    public var text: JSON
    /// `HH:MM` in the dog's time zone: the next such time (or in two hours, if it is later).
    public var localTime: String?
    /// Or after this long.
    public var after: Duration?

    public init(kind: String, text: JSON, localTime: String? = nil, after: Duration? = nil) {
        self.kind = kind
        self.text = text
        self.localTime = localTime
        self.after = after
    }
}
