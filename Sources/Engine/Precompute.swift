import Core
import Foundation
import JQ
import RuleEngine
import Store
import Synchronization

/// Computes the effects of pure consumers (rules that read only the event and its dog) ahead
/// of the serial write phase, on other cores.
///
/// Two ways: ``compute(_:dogs:)`` shares one batch between the calling thread and the worker
/// threads; ``start(_:dogs:releasing:)`` + ``finish()`` compute the *next* batch on the worker
/// threads while the calling thread writes the current one, and on the calling thread too once
/// it is done writing. Each slot (the caller's, and one per
/// worker) has its own rule evaluator and its own libjq values: nothing libjq is shared.
final class Precomputer {
    /// What the pure consumers gave for one event: by consumer index, effects or a refusal.
    struct Outcome: Sendable {
        /// The dog the effects were computed with; they hold only if the event sees this dog.
        var dog: DogProfile?
        var results: [Int: Result<PreparedOutput, Rejection>]
        /// The event's payload as compact JSON text, as its row keeps it.
        var payloadText: String
    }

    /// The dog an event will see, as far as can be told before the batch is written.
    enum DogContext: Sendable {
        /// The event names no dog.
        case none
        case dog(DogProfile)
        /// Not known ahead: the event is computed serially.
        case unknown
    }

    /// One thread's evaluator and the libjq values it built.
    ///
    /// `@unchecked Sendable`: a slot is used by one thread only (the caller's by the caller, a
    /// worker's by that worker), and jobs reach a worker through its condition variable.
    private final class Slot: @unchecked Sendable {
        let evaluator: RuleEvaluator
        /// The rules each consumer evaluates (the effects' provenance).
        let log = DecisionLog()
        let origins = OriginTexts()
        private var dogInputs: [String: JV] = [:]

        init(evaluator: RuleEvaluator) {
            self.evaluator = evaluator
        }

        func dogInput(_ dog: DogProfile) -> JV {
            if let input = dogInputs[dog.id] { return input }
            if dogInputs.count > 100_000 { dogInputs.removeAll() }
            let input = JV(dog.json)
            dogInputs[dog.id] = input
            return input
        }
    }

    /// One batch's work, shared by the threads that compute it: each claims the next few events
    /// not yet claimed until none is left, so that a thread that is free sooner does more.
    ///
    /// `@unchecked Sendable`: each thread writes only the outputs of the events it claimed and
    /// uses only its own slot; results are read after every thread has finished
    /// (``WorkerThread/wait()`` orders those writes before the reads).
    private final class Job: @unchecked Sendable {
        let events: [Event?]
        let dogs: [DogContext]
        let consumers: [(index: Int, consumer: any EventConsumer)]
        var outputs: [Outcome?]
        /// The first event no thread has claimed yet.
        private let unclaimed = Atomic<Int>(0)
        /// How many events a thread claims at a time.
        static let claim = 4

        init(events: [Event?], dogs: [DogContext], consumers: [(index: Int, consumer: any EventConsumer)]) {
            self.events = events
            self.dogs = dogs
            self.consumers = consumers
            self.outputs = Array(repeating: nil, count: events.count)
        }

        /// Computes events not claimed by another thread, with `slot`, until none is left.
        func computeUnclaimed(slot: Slot) {
            while true {
                let first = unclaimed.wrappingAdd(Self.claim, ordering: .relaxed).oldValue
                guard first < events.count else { return }
                for index in first..<min(first + Self.claim, events.count) { compute(index, slot: slot) }
            }
        }

        private func compute(_ index: Int, slot: Slot) {
            guard let event = events[index] else { return }
            let dog: DogProfile?
            switch dogs[index] {
            case .none: dog = nil
            case .dog(let profile): dog = profile
            case .unknown: return
            }
            let context = ConsumerContext(
                event: event, dog: dog, dogInput: dog.map(slot.dogInput), store: NoStore.shared,
                evaluator: slot.evaluator)
            let requestKey = slot.evaluator.inputKey
            slot.evaluator.inputKey = event.quarantineKey
            defer { slot.evaluator.inputKey = requestKey }
            var results: [Int: Result<PreparedOutput, Rejection>] = .init(minimumCapacity: consumers.count)
            for (consumerIndex, consumer) in consumers {
                do {
                    let output = try consumer.output(of: event, in: context, log: slot.log)
                    results[consumerIndex] = .success(
                        PreparedOutput(output, consumer: consumer.name, origins: slot.origins))
                } catch let rejection as Rejection {
                    results[consumerIndex] = .failure(rejection)
                } catch {
                    results[consumerIndex] = .failure(Rejection(.consumerFailed, "\(consumer.name): \(error)"))
                }
            }
            outputs[index] = Outcome(dog: dog, results: results, payloadText: JSON.object(event.payload).compactText)
        }
    }

    /// The calling thread's slot; `workerSlots[i]` is `workers[i]`'s.
    private let callerSlot: Slot
    private let workerSlots: [Slot]
    private let workers: [WorkerThread]
    private let consumers: [(index: Int, consumer: any EventConsumer)]
    private var pending: Job?

    /// - Parameters:
    ///   - evaluator: the caller's evaluator (the caller's slot).
    ///   - workers: threads besides the caller's (each compiles its own programs on first use).
    init(evaluator: RuleEvaluator, consumers: [any EventConsumer], workers: Int) {
        callerSlot = Slot(evaluator: evaluator)
        workerSlots = (0..<max(workers, 0)).map { _ in Slot(evaluator: RuleEvaluator(ruleSet: evaluator.ruleSet)) }
        self.workers = workerSlots.map { _ in WorkerThread() }
        self.consumers = consumers.enumerated().filter { $0.element.isPure }.map { ($0.offset, $0.element) }
        // Each worker compiles the rules it will evaluate, in the background, at once.
        let rules = consumers.compactMap { ($0 as? EventRulesConsumer)?.rule }
        for (slot, worker) in zip(workerSlots, self.workers) {
            worker.start { slot.evaluator.prepare(rules) }
        }
    }

    deinit {
        for worker in workers { worker.stop() }
    }

    /// Whether there is anything to compute ahead.
    var isUseful: Bool { !consumers.isEmpty }

    /// Whether work can be handed to other threads.
    var hasWorkers: Bool { !workers.isEmpty }

    /// The workers' evaluators set aside what the caller's does (the service's quarantine, for
    /// everyone and per input); call it while they are idle.
    private func shareQuarantine() {
        let caller = callerSlot.evaluator
        for slot in workerSlots {
            slot.evaluator.quarantined = caller.quarantined
            slot.evaluator.quarantinedInputs = caller.quarantinedInputs
        }
    }

    /// Outcomes for one batch, computed by the caller and the workers together.
    func compute(_ events: [Event?], dogs: [DogContext]) -> [Outcome?] {
        for worker in workers { worker.wait() }  // a warm-up may still run
        shareQuarantine()
        let job = Job(events: events, dogs: dogs, consumers: consumers)
        for (slot, worker) in zip(workerSlots, workers) {
            worker.start { job.computeUnclaimed(slot: slot) }
        }
        job.computeUnclaimed(slot: callerSlot)
        for worker in workers { worker.wait() }
        return job.outputs
    }

    /// Starts computing a batch on the workers; the caller collects it with ``finish()``, where
    /// it computes what they have not yet claimed. `done` is what the caller has finished with
    /// (the batch before, written): the first worker frees it before its share, so that freeing
    /// thousands of small values is shared out as the computing is.
    func start(_ events: [Event?], dogs: [DogContext], releasing done: (any Sendable)? = nil) {
        precondition(pending == nil && hasWorkers, "finish the previous batch first")
        for worker in workers { worker.wait() }  // a warm-up may still run
        shareQuarantine()
        let job = Job(events: events, dogs: dogs, consumers: consumers)
        pending = job
        let garbage = Garbage(done)
        for (offset, (slot, worker)) in zip(workerSlots, workers).enumerated() {
            worker.start {
                if offset == 0 { garbage.value = nil }
                job.computeUnclaimed(slot: slot)
            }
        }
    }

    /// What a worker frees; only that worker touches it once handed over.
    private final class Garbage: @unchecked Sendable {
        var value: (any Sendable)?
        init(_ value: (any Sendable)?) { self.value = value }
    }

    /// The outcomes of the batch given to ``start(_:dogs:releasing:)``: the caller computes the
    /// events the workers have not claimed, then waits for theirs.
    func finish() -> [Outcome?] {
        guard let job = pending else { return [] }
        job.computeUnclaimed(slot: callerSlot)
        for worker in workers { worker.wait() }
        pending = nil
        return job.outputs
    }
}

/// The store pure consumers see while precomputed: they must not read it.
private final class NoStore: StoreReader, @unchecked Sendable {
    // `@unchecked Sendable`: it has no state.
    static let shared = NoStore()

    struct PureConsumerReadTheStore: Error, CustomStringConvertible {
        var description: String { "a consumer declared pure read the store" }
    }

    func dataVersion(dog: String) throws -> Int64 { throw PureConsumerReadTheStore() }
    func query(_ sql: String, _ values: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        throw PureConsumerReadTheStore()
    }
    func first<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws -> T) throws -> T? {
        throw PureConsumerReadTheStore()
    }
    var derivedCache: DerivedCache { DerivedCache(limit: 0) }
}

/// A thread that runs one job at a time, handed over with a condition variable.
///
/// `@unchecked Sendable`: `job`, `done` and `stopping` are only used with `condition` locked.
final class WorkerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var job: (@Sendable () -> Void)?
    private var done = true
    private var stopping = false

    init() {
        let thread = Thread { [self] in self.loop() }
        thread.name = "journey-precompute"
        thread.start()
    }

    /// Starts `job` on the thread.
    func start(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        self.job = job
        done = false
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the job started last has finished.
    func wait() {
        condition.lock()
        while !done { condition.wait() }
        condition.unlock()
    }

    /// Ends the thread once its current job is done.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while job == nil, !stopping { condition.wait() }
            guard let next = job else {
                condition.unlock()
                return
            }
            job = nil
            condition.unlock()
            next()
            condition.lock()
            done = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
