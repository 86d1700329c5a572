import Core
import Foundation
import JQ
import RuleEngine
import Store

/// The one ingest path for every app event.
///
/// For each event of a batch: validate it; return the original result if its `event_id` was
/// seen before for the user (idempotency); refuse it if it is older than the late window or
/// beyond the clock-skew allowance; check its dog; let every consumer compute effects at
/// the event's time; then write the event row and all of its effects as one unit. One bad
/// event never spoils the rest of its batch, and a refused event leaves nothing behind.
///
/// Consumers that are pure (rules that read only the event and its dog) are computed for the
/// whole batch first, on every core; the store is then written by one thread, in order.
///
/// Not `Sendable`: it owns rule evaluators and uses the store from one thread.
public final class Ingestor {
    public let store: any Store
    public let evaluator: RuleEvaluator
    public let consumers: [any EventConsumer]
    public var policy: IngestPolicy
    private let precomputer: Precomputer
    /// The rules each consumer evaluates for an event (its effects' provenance).
    private let originLog = DecisionLog()
    /// Origins' JSON text by consumer and rules, for the consumers computed here.
    private let origins = OriginTexts()
    /// Batches smaller than this are computed on the calling thread only.
    static let parallelBatchSize = 16
    /// Whether a batch's pure consumers are computed before its transaction even with no other
    /// thread to share them: for a store other processes write too (the service's workers),
    /// so that its write lock is held for writing only, not for evaluating rules.
    public let computesBeforeWriting: Bool

    /// What is known to be stored, to spare a query per event: users, and dogs with their
    /// profile as a libjq value. Filled only with what an event's unit has written or read and
    /// kept; emptied when a batch fails to commit. Dogs never change once registered.
    private var knownUsers: Set<String> = []
    private var knownDogs: [String: (profile: DogProfile, input: JV)] = [:]
    /// The dogs the batch being written names, read at once in its transaction (those
    /// ``knownDogs`` lacked): `asked`, and of them those `found` stored.
    private var batchDogs: (asked: Set<String>, found: [String: DogProfile])?
    private static let cacheLimit = 100_000

    /// The consumers of the bundled engine: dog registration, then one per `event_effects` rule.
    /// `effectTypes` are the effects the rules may produce (the engine's own by default).
    public static func defaultConsumers(for ruleSet: RuleSet, effectTypes: EffectTypes = .engine)
        -> [any EventConsumer]
    {
        [DogRegistrationConsumer()] + EventRulesConsumer.all(in: ruleSet, effectTypes: effectTypes)
    }

    /// - Parameters:
    ///   - cores: how many threads compute pure consumers (default: the machine's cores).
    ///   - computesBeforeWriting: see ``computesBeforeWriting``.
    public init(
        store: any Store, evaluator: RuleEvaluator, consumers: [any EventConsumer]? = nil,
        policy: IngestPolicy = IngestPolicy(), cores: Int = ProcessInfo.processInfo.activeProcessorCount,
        computesBeforeWriting: Bool = false
    ) {
        self.store = store
        self.computesBeforeWriting = computesBeforeWriting
        self.evaluator = evaluator
        let consumers = consumers ?? Self.defaultConsumers(for: evaluator.ruleSet)
        self.consumers = consumers
        self.policy = policy
        self.precomputer = Precomputer(evaluator: evaluator, consumers: consumers, workers: min(max(cores, 1), 8) - 1)
    }

    /// Ingests `batch` in one transaction; a result per event, in order.
    public func ingest(_ batch: [JSON]) -> [IngestResult] {
        ingest(batch.map { Result<JSON, Rejection>.success($0) })
    }

    /// Ingests `batch`, where an item may already be a refusal (a line that is not JSON).
    public func ingest(_ batch: [Result<JSON, Rejection>]) -> [IngestResult] {
        let items = validate(batch)
        var precomputed: [Precomputer.Outcome?]?
        if precomputer.isUseful,
            computesBeforeWriting || (precomputer.hasWorkers && items.count >= Self.parallelBatchSize)
        {
            var carried: [String: DogProfile] = [:]
            precomputed = precomputer.compute(items.map(\.event), dogs: dogContexts(items, carried: &carried))
        }
        return write(items, precomputed)
    }

    /// Ingests a stream of batches, handing each batch's results to `onResults` in order.
    /// While one batch is written, the next one's pure consumers are computed on other cores.
    public func ingest<Batches: Sequence>(
        stream batches: Batches, onResults: ([IngestResult]) -> Void
    ) where Batches.Element == [Result<JSON, Rejection>] {
        guard precomputer.isUseful, precomputer.hasWorkers else {
            for batch in batches { onResults(ingest(batch)) }
            return
        }
        var iterator = batches.makeIterator()
        guard let first = iterator.next() else { return }
        var carried: [String: DogProfile] = [:]
        var current = validate(first)
        precomputer.start(current.map(\.event), dogs: dogContexts(current, carried: &carried))
        // The batch after the one being computed is parsed and validated while the workers
        // compute, so that they can start on it the moment they finish: parsing is never on the
        // path between one batch's computation and the next.
        var parsed: [Result<JSON, Rejection>]?
        var ahead: (items: [Item], dogs: [Precomputer.DogContext])?
        func readAhead() {
            parsed = iterator.next()
            ahead = parsed.map { validate($0) }.map { ($0, dogContexts($0, carried: &carried)) }
        }
        readAhead()
        // What the writer is done with (the batch written before: its events, outcomes and
        // results; the lines parsed for the batch just started) is freed by a worker while the
        // next batch is computed, not by the writer's thread.
        var written: (items: [Item], outcomes: [Precomputer.Outcome?], results: [IngestResult])?
        while true {
            let outcomes = precomputer.finish()
            if let ahead {
                precomputer.start(ahead.items.map(\.event), dogs: ahead.dogs, releasing: (written, parsed))
            }
            written = nil
            parsed = nil
            let results = write(current, outcomes)
            onResults(results)
            guard let next = ahead?.items else { return }
            written = (current, outcomes, results)
            current = next
            if carried.count > Self.cacheLimit { carried.removeAll() }
            readAhead()
        }
    }

    private func validate(_ batch: [Result<JSON, Rejection>]) -> [Item] {
        let receivedAt = policy.clock()
        return batch.map { Item($0, receivedAt: receivedAt) }
    }

    /// Writes a validated batch, with the pure consumers' outcomes computed ahead (if any),
    /// trying each ``WriteMode`` in turn until one commits: a stored duplicate fails the first
    /// (its row breaks the events' uniqueness), a storage error the first two.
    private func write(_ items: [Item], _ precomputed: [Precomputer.Outcome?]?) -> [IngestResult] {
        let users = Array(Set(items.compactMap { $0.event?.userID }))
        var failure: (any Error)?
        for mode in WriteMode.allCases {
            do {
                return try retryingTransient {
                    try store.transaction {
                        try store.serializeWriters(of: users)
                        return try run(items, precomputed, mode)
                    }
                }
            } catch {
                forget()  // nothing of the try was kept, nor may be remembered
                failure = error
            }
        }
        let rejection = Rejection(
            .storageError,
            "the batch could not be stored (\(failure.map { "\($0)" } ?? "")); nothing of it was kept: send it again")
        return items.map { item in
            switch item {
            case .refused(let result): result
            case .event(let event): .rejected(rejection, eventID: event.eventID, userID: event.userID, type: event.type)
            }
        }
    }

    /// How a batch is written, in the order tried. Every refusal happens before an event writes
    /// anything, so that a batch needs no savepoints unless a write fails.
    enum WriteMode: CaseIterable {
        /// In one transaction, only the batch's own repeats looked up: a resent event fails to
        /// insert, and so the try; one refused first is looked up then, as the original result
        /// wins.
        case optimistic
        /// In one transaction, the events that may be stored looked up first (``BatchEvents``).
        case checked
        /// Looked up, each event in its own savepoint: a storage error refuses only that event.
        case guarded
    }

    /// A validated event, or the result of refusing it.
    enum Item: Sendable {
        case event(Event)
        case refused(IngestResult)

        init(_ item: Result<JSON, Rejection>, receivedAt: Double) {
            switch item {
            case .failure(let rejection):
                self = .refused(.rejected(rejection, eventID: nil, userID: nil, type: nil))
            case .success(let json):
                do {
                    self = .event(try Event(validating: json, receivedAt: receivedAt))
                } catch {
                    self = .refused(
                        .rejected(
                            error, eventID: json["event_id"]?.stringValue, userID: json["user_id"]?.stringValue,
                            type: json["type"]?.stringValue))
                }
            }
        }

        var event: Event? {
            if case .event(let event) = self { return event }
            return nil
        }
    }

    /// The dog each event will see: stored ones, and those registered earlier (in this batch, or
    /// in `carried`, registrations of batches not yet written). Registration is pure: its
    /// profile follows from the event. Should a registration be refused, its events see no dog
    /// and the outcomes computed with it are not used.
    private func dogContexts(_ items: [Item], carried: inout [String: DogProfile]) -> [Precomputer.DogContext] {
        var missing: Set<String> = []
        // The dogs neither carried nor known, read in one query.
        var unknown: Set<String> = []
        for item in items {
            if let dogID = item.event?.dogID, carried[dogID] == nil, knownDogs[dogID] == nil { unknown.insert(dogID) }
        }
        let stored = (try? store.dogs(unknown.sorted())) ?? [:]
        let registration = DogRegistrationConsumer()
        var contexts: [Precomputer.DogContext] = []
        contexts.reserveCapacity(items.count)
        for item in items {
            guard let event = item.event, let dogID = event.dogID else {
                contexts.append(.none)
                continue
            }
            if carried[dogID] == nil, !missing.contains(dogID) {
                if let known = knownDogs[dogID] {
                    carried[dogID] = known.profile
                } else if let stored = stored[dogID] {
                    carried[dogID] = stored
                } else {
                    missing.insert(dogID)
                }
            }
            if carried[dogID] == nil, event.type == "dog_registered",
                let profile = try? registration.profile(dogID, event)
            {
                carried[dogID] = profile
                missing.remove(dogID)
            }
            contexts.append(carried[dogID].map(Precomputer.DogContext.dog) ?? .unknown)
        }
        return contexts
    }

    private func run(_ items: [Item], _ precomputed: [Precomputer.Outcome?]?, _ mode: WriteMode) throws
        -> [IngestResult]
    {
        var results: [IngestResult] = []
        results.reserveCapacity(items.count)
        let events = items.compactMap(\.event)
        let unknown = Set(events.compactMap(\.dogID).filter { knownDogs[$0] == nil })
        batchDogs = (unknown, try store.dogs(unknown.sorted()))
        defer { batchDogs = nil }
        var batch = mode == .optimistic ? BatchEvents() : try BatchEvents(events, in: store)
        for consumer in consumers where !consumer.isPure { try consumer.keepReads(for: events, in: store) }
        if let chooser = evaluator.variantChooser {
            chooser.keepReads(for: Array(Set(events.map { ExperimentSubject(userID: $0.userID, dogID: $0.dogID) })))
        }
        var reminders = ReminderMerges()
        for (index, item) in items.enumerated() {
            switch item {
            case .refused(let result): results.append(result)
            case .event(let event):
                let result = try ingestOne(
                    event, precomputed: precomputed?[index], mode: mode, batch: batch, reminders: &reminders)
                if result.status == .accepted { batch.accepted(event) }
                results.append(result)
            }
        }
        try reminders.flush(to: store)
        return results
    }

    /// One event. Unguarded, a storage error is thrown (to abort the try) and the reminders it
    /// schedules are held in the batch's `reminders`; guarded, the event runs in a savepoint, with
    /// its reminders, and a storage error refuses only it.
    private func ingestOne(
        _ event: Event, precomputed: Precomputer.Outcome?, mode: WriteMode, batch: BatchEvents,
        reminders: inout ReminderMerges
    ) throws -> IngestResult {
        var learned = Learned()
        let lookUp = batch.mayBeStored(event)
        /// Not looked up before it was refused: a stored event's original result wins.
        func original() throws -> IngestResult? {
            mode == .optimistic && !lookUp ? try storedResult(of: event) : nil
        }
        do {
            let result =
                mode == .guarded
                ? try store.savepoint {
                    var own = ReminderMerges()
                    let result = try apply(
                        event, precomputed: precomputed, lookUp: lookUp, learned: &learned, reminders: &own)
                    try own.flush(to: store)
                    return result
                }
                : try apply(event, precomputed: precomputed, lookUp: lookUp, learned: &learned, reminders: &reminders)
            remember(learned)
            return result
        } catch let rejection as Rejection {
            return try original()
                ?? .rejected(rejection, eventID: event.eventID, userID: event.userID, type: event.type)
        } catch let repeated as AlreadyRecorded {
            return try original()
                ?? IngestResult(
                    status: .duplicate, eventID: event.eventID, userID: event.userID, type: event.type,
                    code: repeated.code, message: repeated.message, effects: [])
        } catch {
            guard mode == .guarded else { throw error }
            return .rejected(
                Rejection(.storageError, "\(error)"), eventID: event.eventID, userID: event.userID, type: event.type)
        }
    }

    /// The original result of `event` if its user's `event_id` is stored.
    private func storedResult(of event: Event) throws -> IngestResult? {
        guard let stored = try store.event(user: event.userID, eventID: event.eventID) else { return nil }
        return IngestResult(
            status: .duplicate, eventID: event.eventID, userID: event.userID, type: stored.type, code: nil,
            message: nil, effects: stored.outcome.arrayValue ?? [])
    }

    /// Runs `body` again (after a short, growing pause) while it fails with a transient store
    /// failure, up to ``transientAttempts`` times; what it remembered is forgotten each time.
    private func retryingTransient<T>(_ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try body()
            } catch let failure as any TransientStoreFailure
                where failure.isTransient && attempt < Self.transientAttempts
            {
                forget()
                usleep(UInt32(1_000 << min(attempt, 6)) + UInt32.random(in: 0..<1_000))
                attempt += 1
            }
        }
    }

    /// How many times a batch is tried when the store fails transiently.
    static let transientAttempts = 5

    private func forget() {
        knownUsers.removeAll()
        knownDogs.removeAll()
    }

    /// What one event's unit stored or read, remembered once the unit is kept.
    private struct Learned {
        var user: String?
        var dog: (profile: DogProfile, input: JV)?
    }

    private func remember(_ learned: Learned) {
        if knownUsers.count > Self.cacheLimit { knownUsers.removeAll() }
        if knownDogs.count > Self.cacheLimit { knownDogs.removeAll() }
        if let user = learned.user { knownUsers.insert(user) }
        if let dog = learned.dog { knownDogs[dog.profile.id] = dog }
    }

    /// The stored dog `id`, from memory, from the batch's read or from the store.
    private func dog(_ id: String, learned: inout Learned) throws -> (profile: DogProfile, input: JV)? {
        if let known = knownDogs[id] { return known }
        let profile: DogProfile?
        if let batchDogs, batchDogs.asked.contains(id) {
            profile = batchDogs.found[id]
        } else {
            profile = try store.dog(id)
        }
        guard let profile else { return nil }
        let found = (profile, JV(profile.json))
        learned.dog = found
        return found
    }

    /// Everything for one accepted-or-duplicate event (`lookUp`: it may be stored already);
    /// throws ``Rejection`` to refuse it. The reminders held in `reminders` are written before a
    /// consumer that reads them runs.
    private func apply(
        _ event: Event, precomputed: Precomputer.Outcome?, lookUp: Bool, learned: inout Learned,
        reminders: inout ReminderMerges
    ) throws -> IngestResult {
        if lookUp, let stored = try storedResult(of: event) { return stored }
        try checkTime(event)
        var dog: (profile: DogProfile, input: JV)?
        if let dogID = event.dogID {
            dog = try self.dog(dogID, learned: &learned)
            if event.type != "dog_registered", dog == nil || dog?.profile.userID != event.userID {
                throw Rejection(.unknownDog, "user \(event.userID) has no dog \(dogID)")
            }
        }
        let context = ConsumerContext(
            event: event, dog: dog?.profile, dogInput: dog?.input, store: store, evaluator: evaluator,
            dogLookedUp: event.dogID != nil)
        // An event's rule inputs are its dog's (else its user's), as the views key them: a rule
        // that runs away on them is quarantined for that dog or user only.
        let requestKey = evaluator.inputKey
        evaluator.inputKey = event.quarantineKey
        defer { evaluator.inputKey = requestKey }
        var effects: [Effect] = []
        var outcome: [JSON] = []
        // The texts of the row's outcome and provenance elements, joined once at the end.
        var outcomeTexts: [String] = []
        var provenanceTexts: [String] = []
        // Outputs computed ahead hold while the event sees the dog they were computed with.
        var precomputedHolds = precomputed.map { $0.dog == context.dog } ?? false
        for (index, consumer) in consumers.enumerated() {
            let produced: PreparedOutput
            let ahead = precomputedHolds ? precomputed?.results[index] : nil
            // A consumer that reads reminders sees those of the events before.
            if ahead == nil, consumer.readsReminders(for: event) { try reminders.flush(to: store) }
            do {
                if let ahead {
                    produced = try ahead.get()  // computed ahead with the same event and dog
                } else {
                    produced = PreparedOutput(
                        try consumer.output(of: event, in: context, log: originLog), consumer: consumer.name,
                        origins: self.origins)
                }
            } catch let rejection as Rejection {
                throw rejection
            } catch let repeated as AlreadyRecorded {
                throw repeated
            } catch {
                throw Rejection(.consumerFailed, "\(consumer.name): \(error)")
            }
            guard !produced.effects.isEmpty else { continue }
            for effect in produced.effects {
                if case .dogRegistered(let profile) = effect {
                    context.register(profile)
                    precomputedHolds = precomputed.map { $0.dog == context.dog } ?? false
                }
            }
            effects += produced.effects
            outcome += produced.json
            outcomeTexts += produced.texts
            provenanceTexts += repeatElement(produced.origin, count: produced.texts.count)
            context.effectsSoFar = effects
        }
        // Writes only from here on: every refusal above leaves nothing behind.
        if !knownUsers.contains(event.userID) {
            try store.ensureUser(event.userID, firstSeenAt: event.receivedAt)
            learned.user = event.userID
        }
        let row = try store.insertEvent(
            StoredEvent(
                userID: event.userID, eventID: event.eventID, type: event.type, dogID: event.dogID,
                occurredAt: event.occurredAt, occurredAtText: event.occurredAtText, receivedAt: event.receivedAt,
                payload: .object(event.payload), outcome: .array(outcome), ruleRevision: evaluator.ruleSet.revision,
                provenanceText: effects.isEmpty ? nil : JSON.arrayText(of: provenanceTexts),
                payloadText: precomputed?.payloadText, outcomeText: JSON.arrayText(of: outcomeTexts)))
        try EffectApplier.apply(effects, of: event, eventRow: row, to: store, reminders: &reminders)
        // A dog this event registered is known from now on, as stored.
        if dog == nil, let registered = context.dog {
            learned.dog = (registered, JV(registered.json))
        }
        return IngestResult(
            status: .accepted, eventID: event.eventID, userID: event.userID, type: event.type, code: nil, message: nil,
            effects: outcome)
    }

    /// Refuses events older than the late window or later than the clock-skew allowance.
    /// Both bounds are inclusive: an event exactly 7 days old is accepted.
    private func checkTime(_ event: Event) throws(Rejection) {
        let age = event.receivedAt - event.occurredAt
        if age > policy.lateWindow.seconds {
            throw Rejection(
                .tooLate,
                "occurred \(Self.describe(age)) before it was received, beyond the late window of \(DurationText.format(policy.lateWindow))"
            )
        }
        if -age > policy.clockSkew.seconds {
            throw Rejection(
                .inFuture,
                "occurs \(Self.describe(-age)) after it was received, beyond the clock-skew allowance of \(DurationText.format(policy.clockSkew))"
            )
        }
    }

    static func describe(_ seconds: Double) -> String {
        DurationText.format(.milliseconds(Int64((seconds * 1000).rounded())))
    }
}
