import CSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Memory shared by the supervisor and its workers (one `MAP_SHARED` mapping of a memfd that
/// the workers inherit): generation counters that tell workers to reload, each worker's slot
/// (what it is evaluating right now, so that a crash can be blamed on a rule), and the
/// metrics of every worker, so that `/metrics` on any worker shows the whole service.
///
/// Every word is read and written with atomic operations; strings are written before the
/// length word that publishes them.
///
/// `@unchecked Sendable`: the mapping lives as long as the object, and all access to it is
/// atomic per word.
public final class ControlBlock: @unchecked Sendable {
    /// The descriptor of the shared memory (passed to workers).
    public let descriptor: Int32
    let base: UnsafeMutableRawPointer

    static let size = 4 << 20
    static let maxWorkers = 64
    static let slotSize = 1024
    static let slotsOffset = 4096
    static let metricsOffset = slotsOffset + maxWorkers * slotSize
    /// Change counters of dogs (by hash), bumped by a worker after it stored events of a dog.
    static let dogCountersOffset = 1 << 20
    static let dogCounters = 65_536
    /// The users' rate buckets (``SharedRateLimiter``): one table per limit, from 2 MiB on.
    static let rateTablesOffset = 2 << 20
    static let rateTableWords = 65_536

    /// Header words.
    enum Word: Int {
        case magic = 0
        /// Bumped to make every worker reload its rules (SIGHUP, the admin endpoint).
        case reloadGeneration
        /// Bumped when a rule is quarantined or released: workers re-read the quarantine.
        case quarantineGeneration
        /// Workers restarted after they ended or crashed.
        case workerRestarts
        /// Workers the service runs.
        case workers
        /// Set when the service is shutting down.
        case shuttingDown
        /// Transactions that committed `POST /v1/events` batches (each holds one or more).
        case eventCommits
        /// `POST /v1/events` requests whose batch such a transaction held.
        case eventCommitRequests
    }

    private static let magic: UInt64 = 0x4A4F_5552_4E45_5901

    /// A new block (the supervisor's, or a single-process service's).
    public static func create() throws(ServiceError) -> ControlBlock {
        let descriptor = journey_shared_memory_file("journey-control")
        guard descriptor >= 0, ftruncate(descriptor, off_t(size)) == 0 else {
            throw ServiceError("cannot create the shared control block: \(String(cString: strerror(errno)))")
        }
        let block = try ControlBlock(descriptor: descriptor)
        block.store(.magic, magic)
        return block
    }

    /// The block inherited as `descriptor` (a worker's).
    public static func adopt(descriptor: Int32) throws(ServiceError) -> ControlBlock {
        let block = try ControlBlock(descriptor: descriptor)
        guard block.load(.magic) == magic else { throw ServiceError("descriptor \(descriptor) is not a control block") }
        return block
    }

    private init(descriptor: Int32) throws(ServiceError) {
        guard let mapped = mmap(nil, Self.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
            mapped != MAP_FAILED
        else {
            throw ServiceError("cannot map the shared control block: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        self.base = mapped
    }

    deinit {
        munmap(base, Self.size)
    }

    // MARK: Words

    func word(at offset: Int) -> UnsafeMutablePointer<UInt64> {
        (base + offset).assumingMemoryBound(to: UInt64.self)
    }

    func load(_ word: Word) -> UInt64 { journey_atomic_load(self.word(at: word.rawValue * 8)) }
    func store(_ word: Word, _ value: UInt64) { journey_atomic_store(self.word(at: word.rawValue * 8), value) }
    @discardableResult
    func increment(_ word: Word) -> UInt64 { journey_atomic_add(self.word(at: word.rawValue * 8), 1) }

    public var reloadGeneration: UInt64 { load(.reloadGeneration) }
    public var quarantineGeneration: UInt64 { load(.quarantineGeneration) }
    public var workerRestarts: UInt64 { load(.workerRestarts) }

    /// Records how many workers the service runs (metrics read it).
    public func setWorkerCount(_ count: Int) { store(.workers, UInt64(count)) }

    /// Asks every worker to reload its rules; returns the new generation.
    @discardableResult public func requestReload() -> UInt64 { increment(.reloadGeneration) }
    /// Tells every worker the quarantine changed; returns the new generation.
    @discardableResult public func quarantineChanged() -> UInt64 { increment(.quarantineGeneration) }

    /// Counts one group commit of `requests` requests' batches.
    func countEventCommit(requests: Int) {
        _ = increment(.eventCommits)
        _ = journey_atomic_add(word(at: Word.eventCommitRequests.rawValue * 8), UInt64(requests))
    }

    /// Group commits so far, and the requests they held.
    var eventCommits: (commits: UInt64, requests: UInt64) { (load(.eventCommits), load(.eventCommitRequests)) }

    // MARK: Rate buckets

    /// The words of rate table `index` (0: users' requests, 1: users' events).
    func rateTable(_ index: Int) -> UnsafeMutablePointer<UInt64> {
        precondition(index >= 0 && Self.rateTablesOffset + (index + 1) * Self.rateTableWords * 8 <= Self.size)
        return word(at: Self.rateTablesOffset + index * Self.rateTableWords * 8)
    }

    // MARK: Dog change counters

    private func dogCounter(_ dog: String) -> UnsafeMutablePointer<UInt64> {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in dog.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return word(at: Self.dogCountersOffset + Int(hash % UInt64(Self.dogCounters)) * 8)
    }

    /// How often events of `dog` (or of a dog sharing its counter) were stored by the service.
    func changes(of dog: String) -> UInt64 { journey_atomic_load(dogCounter(dog)) }

    /// Tells every worker that `dog`'s data changed (after the commit).
    func dogChanged(_ dog: String) { _ = journey_atomic_add(dogCounter(dog), 1) }

    // MARK: Strings

    /// Writes `text` (truncated to `capacity - 8` bytes) at `offset`: bytes first, then the length.
    func writeString(_ text: String, at offset: Int, capacity: Int) {
        var text = text
        let count = text.withUTF8 { bytes in
            let count = min(bytes.count, capacity - 8)
            if count > 0 { (base + offset + 8).copyMemory(from: bytes.baseAddress!, byteCount: count) }
            return count
        }
        journey_atomic_store(word(at: offset), UInt64(count))
    }

    func readString(at offset: Int, capacity: Int) -> String {
        let count = min(Int(journey_atomic_load(word(at: offset))), capacity - 8)
        let buffer = UnsafeRawBufferPointer(start: base + offset + 8, count: count)
        return String(decoding: buffer, as: UTF8.self)
    }

    // MARK: Worker slots

    /// The slot of worker `index`.
    public func slot(_ index: Int) -> WorkerSlot {
        precondition(index >= 0 && index < Self.maxWorkers, "worker index \(index) out of range")
        return WorkerSlot(block: self, offset: Self.slotsOffset + index * Self.slotSize)
    }
}

/// One worker's part of the control block.
public struct WorkerSlot: @unchecked Sendable {
    // `@unchecked Sendable`: a view of shared memory accessed atomically.
    let block: ControlBlock
    let offset: Int

    /// What a worker is doing, as its slot says.
    public enum Activity: UInt64, Sendable {
        case idle = 0
        /// Evaluating a rule (named in the slot) for a request.
        case evaluating = 1
        /// Loading and testing a candidate rule set (its revision in the slot).
        case validating = 2
    }

    private enum Field: Int {
        case pid = 0, activity = 8, ready = 16, startedNanoseconds = 24, requests = 32
        case rule = 64  // 128 bytes
        case ruleDigest = 192  // 72 bytes
        case request = 264  // 264 bytes
        case requestDigest = 528  // 72 bytes
        case candidate = 600  // 72 bytes
        case serving = 672  // 72 bytes
        case lastReloadAt = 744, lastReloadOK = 752, lastReloadSequence = 760
        case consecutiveCrashes = 768, restartBackoffMilliseconds = 776
        case openConnections = 784, connectionsPastDeadline = 792, connectionsShed = 800
    }

    private func word(_ field: Field) -> UnsafeMutablePointer<UInt64> { block.word(at: offset + field.rawValue) }

    public var pid: Int32 {
        get { Int32(truncatingIfNeeded: journey_atomic_load(word(.pid))) }
        nonmutating set { journey_atomic_store(word(.pid), UInt64(UInt32(bitPattern: newValue))) }
    }

    public var activity: Activity {
        get { Activity(rawValue: journey_atomic_load(word(.activity))) ?? .idle }
        nonmutating set { journey_atomic_store(word(.activity), newValue.rawValue) }
    }

    /// Whether the worker has loaded rules and serves.
    public var isReady: Bool {
        get { journey_atomic_load(word(.ready)) != 0 }
        nonmutating set { journey_atomic_store(word(.ready), newValue ? 1 : 0) }
    }

    /// Requests the worker has answered.
    public var requests: UInt64 { journey_atomic_load(word(.requests)) }
    func countRequest() { _ = journey_atomic_add(word(.requests), 1) }

    /// The rule being evaluated (while `activity` is `evaluating`).
    public var rule: String { block.readString(at: offset + Field.rule.rawValue, capacity: 128) }
    public var ruleDigest: String { block.readString(at: offset + Field.ruleDigest.rawValue, capacity: 72) }
    /// The request being answered: `GET /v1/dogs/q-123/today`.
    public var request: String { block.readString(at: offset + Field.request.rawValue, capacity: 264) }
    /// A digest of the request being answered: FNV-1a (64-bit) of its method, target and body.
    public var requestDigest: String {
        let hex = String(journey_atomic_load(word(.requestDigest)), radix: 16)
        return "fnv1a64:" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }
    /// The revision being validated (while `activity` is `validating`).
    public var candidate: String { block.readString(at: offset + Field.candidate.rawValue, capacity: 72) }
    /// The revision the worker serves.
    public var serving: String { block.readString(at: offset + Field.serving.rawValue, capacity: 72) }

    func beginEvaluation(rule: String, digest: String) {
        block.writeString(rule, at: offset + Field.rule.rawValue, capacity: 128)
        block.writeString(digest, at: offset + Field.ruleDigest.rawValue, capacity: 72)
        activity = .evaluating
    }

    func endEvaluation() { activity = .idle }

    func beginRequest(_ line: String, digest: UInt64) {
        block.writeString(line, at: offset + Field.request.rawValue, capacity: 264)
        journey_atomic_store(word(.requestDigest), digest)
    }

    func beginValidation(candidate: String) {
        block.writeString(candidate, at: offset + Field.candidate.rawValue, capacity: 72)
        activity = .validating
    }

    func setServing(_ revision: String) {
        block.writeString(revision, at: offset + Field.serving.rawValue, capacity: 72)
    }

    /// The worker's last reload: when (seconds since 1970) and whether it succeeded.
    public var lastReload: (at: Double, succeeded: Bool)? {
        let sequence = journey_atomic_load(word(.lastReloadSequence))
        guard sequence > 0 else { return nil }
        return (
            Double(bitPattern: journey_atomic_load(word(.lastReloadAt))), journey_atomic_load(word(.lastReloadOK)) != 0
        )
    }

    func recordReload(at time: Double, succeeded: Bool) {
        journey_atomic_store(word(.lastReloadAt), time.bitPattern)
        journey_atomic_store(word(.lastReloadOK), succeeded ? 1 : 0)
        _ = journey_atomic_add(word(.lastReloadSequence), 1)
    }

    /// How many times in a row the worker died soon after it started (0 once one lives on),
    /// and how long the supervisor waits before the next restart: a crash loop, backed off.
    public var crashLoop: (crashes: Int, backoffSeconds: Double) {
        (
            Int(journey_atomic_load(word(.consecutiveCrashes))),
            Double(journey_atomic_load(word(.restartBackoffMilliseconds))) / 1000
        )
    }

    func recordCrashLoop(crashes: Int, backoff: Duration) {
        journey_atomic_store(word(.consecutiveCrashes), UInt64(max(crashes, 0)))
        journey_atomic_store(word(.restartBackoffMilliseconds), UInt64(max(backoff.seconds, 0) * 1000))
    }

    /// The worker's open connections, those it shut down for not sending a request's headers
    /// or body in time, and the idle ones it shed for new ones (both since it started), as its
    /// control loop last saw them.
    public var connections: (open: Int, pastDeadline: Int, shed: Int) {
        (
            Int(journey_atomic_load(word(.openConnections))), Int(journey_atomic_load(word(.connectionsPastDeadline))),
            Int(journey_atomic_load(word(.connectionsShed)))
        )
    }

    func recordConnections(open: Int, pastDeadline: Int, shed: Int) {
        journey_atomic_store(word(.openConnections), UInt64(max(open, 0)))
        journey_atomic_store(word(.connectionsPastDeadline), UInt64(max(pastDeadline, 0)))
        journey_atomic_store(word(.connectionsShed), UInt64(max(shed, 0)))
    }

    /// Clears the slot for a new worker process.
    func reset(pid: Int32) {
        activity = .idle
        isReady = false
        self.pid = pid
        recordConnections(open: 0, pastDeadline: 0, shed: 0)
    }
}

/// A problem running the service (sockets, processes, shared memory, configuration).
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Limits of the control block that callers check against.
public enum ControlBlockLimits {
    /// Most worker processes a service can run.
    public static let maxWorkers = ControlBlock.maxWorkers
}
