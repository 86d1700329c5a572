import JQ
import RuleEngine
import Store

/// A feature's part in the ingest path: given an event, what should happen.
///
/// Consumers compute effects at the event's time (`occurred_at`) from the event and what is
/// stored, and never write: the engine applies every consumer's effects, with the event row,
/// in one transaction. A consumer that throws a ``Rejection`` refuses the event with that
/// code; any other error refuses it as `consumer_failed`. Either way nothing of it is applied.
public protocol EventConsumer: Sendable {
    /// How messages and results name the consumer.
    var name: String { get }
    /// True when the effects depend only on the event and its dog's profile (never on other
    /// stored state): the engine may then compute them ahead, on another core.
    var isPure: Bool { get }
    /// False when the consumer does not read reminders for `event`: the engine may then keep the
    /// reminders of the batch's earlier events unwritten while it runs (``isPure`` consumers
    /// read nothing). A consumer that may read them must say so, or it misses the batch's.
    func readsReminders(for event: Event) -> Bool
    /// The effects of `event`.
    func effects(of event: Event, in context: ConsumerContext) throws -> [Effect]
    /// Before a batch's events, in its write transaction: reads at once what ``effects(of:in:)``
    /// will read for many of `events` (a dog's rows for all the batch's dogs), kept for the
    /// transaction (``TransactionReads``), so that the events wait for no read of their own.
    /// What is kept must be what each event would read itself. Nothing by default.
    func keepReads(for events: [Event], in store: any StoreReader) throws
}

extension EventConsumer {
    public func keepReads(for events: [Event], in store: any StoreReader) throws {}
    public var isPure: Bool { false }
    public func readsReminders(for event: Event) -> Bool { !isPure }
}

/// What a consumer can see while it handles one event.
///
/// Not `Sendable`: it holds the thread's rule evaluator and the event's libjq input.
public final class ConsumerContext {
    public let event: Event
    /// The event's dog, when it names one that exists (or is being registered by this event).
    public internal(set) var dog: DogProfile?
    /// Reads of the store, as of this event (earlier events of the batch included).
    public let store: any StoreReader
    /// The rule set and this thread's compiled programs.
    public let evaluator: RuleEvaluator
    /// Effects of the consumers that ran before, for this event.
    public internal(set) var effectsSoFar: [Effect] = []
    /// Whether ``dog`` was read from the store for this event (in its transaction) by whoever
    /// made the context: nil then means no such dog is stored, and need not be asked again.
    public let dogLookedUp: Bool

    /// Sets the dog (after a registration in this event), dropping inputs built without it.
    func register(_ profile: DogProfile) {
        dog = profile
        dogInput = nil
        cachedRuleInput = nil
    }

    private var cachedRuleInput: JV?
    /// The dog's profile as a libjq value, kept by the ingestor across events.
    var dogInput: JV?

    init(
        event: Event, dog: DogProfile?, dogInput: JV?, store: any StoreReader, evaluator: RuleEvaluator,
        dogLookedUp: Bool = false
    ) {
        self.event = event
        self.dogLookedUp = dogLookedUp
        self.dog = dog
        self.dogInput = dogInput
        self.store = store
        self.evaluator = evaluator
    }

    /// `{event, dog}` as one libjq value, built once and shared by every rule of this event.
    public var ruleInput: JV {
        if let cachedRuleInput { return cachedRuleInput }
        let dogValue = dogInput ?? JV(dog?.json ?? .null)
        let input = JV.object([("event", event.ruleValue), ("dog", dogValue)])
        cachedRuleInput = input
        return input
    }
}
