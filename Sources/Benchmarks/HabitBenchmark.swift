import Core
import Engine
import Features
import Foundation
import Habits
import JQ
import JQBaseline
import RuleEngine
import SQLiteStore
import Store

/// The habit statistics of a user with 20 trackers and 3 years of check-ins: the whole
/// engine path (store reads, facts, the habit_stat rules) beside the raw libjq cost of the
/// same rules on the same facts, alternating rounds, computed and kept; then what one check-in
/// costs on trackers 30, 400 and 1,000 days old.
struct HabitBenchmark {
    var options: BenchmarkOptions

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    func run() throws {
        let (ruleSet, evaluator) = try options.loadRules()
        let path = NSTemporaryDirectory() + "journey-bench-habits-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path, schema: Features.all.schema)
        let checkins = try seed(store)
        let trackers = try store.habitTrackers(user: "bench-user")
        let facts = try HabitFacts.input(trackers: trackers, checkins: try store.habitCheckins(user: "bench-user"))
        let factsText = facts.compactText
        let rules = HabitStatistics.rules(in: ruleSet)
        let library = ruleSet.libraryDirectory
        let stats = try HabitStatistics.json(user: "bench-user", store: store, evaluator: evaluator)

        print(
            "journey-bench habits: statistics for a user with \(trackers.count) trackers and \(checkins) check-ins over 3 years"
        )
        print("facts: \(ByteCount.format(factsText.utf8.count)) JSON; statistics: \(stats.compactText)")
        print("\(options.iterations) computations per round and side, \(options.rounds) alternating rounds, medians\n")

        var whole: [Double] = []
        var afterCheckin: [Double] = []
        var kept: [Double] = []
        var reads: [Double] = []
        var factsOnly: [Double] = []
        var rulesOnly: [Double] = []
        var raw: [Double] = []
        let input = JV(facts)
        for _ in 0..<options.rounds {
            whole.append(
                measure(options.iterations, setUp: { store.derivedCache.removeAll() }) {
                    _ = try? HabitStatistics.computed(user: "bench-user", store: store, evaluator: evaluator)
                })
            // A day of one tracker checked or unchecked (not timed), then the screen.
            var toggles = 0
            afterCheckin.append(
                measure(
                    options.iterations,
                    setUp: {
                        toggles += 1
                        let day = HabitCheckin(trackerID: "t\(toggles % 20)", date: "2027-01-01")
                        let change: HabitChange = toggles / 20 % 2 == 0 ? .checked(day) : .unchecked(day)
                        try? store.applyHabitChange(change, user: "bench-user", at: Double(toggles), event: nil)
                    }
                ) {
                    _ = try? HabitStatistics.computed(user: "bench-user", store: store, evaluator: evaluator)
                })
            // The screen the last check-in left to compute, computed once before timing it kept.
            _ = try? HabitStatistics.json(user: "bench-user", store: store, evaluator: evaluator)
            kept.append(
                measure(options.iterations) {
                    _ = try? HabitStatistics.json(user: "bench-user", store: store, evaluator: evaluator)
                })
            reads.append(
                measure(options.iterations) {
                    _ = try? store.habitDataVersion(user: "bench-user")
                    _ = try? store.habitTrackers(user: "bench-user")
                    _ = try? store.habitCheckinDays(user: "bench-user")
                })
            factsOnly.append(
                measure(options.iterations) {
                    let trackers = (try? store.habitTrackers(user: "bench-user")) ?? []
                    let days = (try? store.habitCheckinDays(user: "bench-user")) ?? [:]
                    _ = HabitFacts.value(trackers: trackers, days: days)
                })
            rulesOnly.append(
                measure(options.iterations) {
                    for rule in rules { _ = try? evaluator.evaluate(rule, input: input) }
                })
            var total = 0.0
            for rule in rules {
                var outputs = 0
                let (source, constants) = baselineProgram(rule, rule.defaultVariant.expression.source)
                let ns = jqb_ns_per_eval_prebuilt(
                    source, library, constants, factsText, options.iterations, &outputs)
                guard ns >= 0 else { throw Problem(description: "the C baseline cannot compile \(rule.id)") }
                total += ns / 1000
            }
            raw.append(total)
        }
        let (w, a, f, r, c) = (median(whole), median(afterCheckin), median(factsOnly), median(rulesOnly), median(raw))
        print(
            table(
                header: ["", "µs per user", "× raw libjq"],
                rows: [
                    ["raw libjq: the \(rules.count) rules on pre-built facts (C)", format(c), "1.00×"],
                    ["engine: the rules on pre-built facts", format(r), ratio(r / c)],
                    ["engine: store reads alone", format(median(reads)), ratio(median(reads) / c)],
                    ["engine: store reads + facts as a libjq value (no rules)", format(f), ratio(f / c)],
                    ["engine: the whole statistics screen, computed (nothing kept)", format(w), ratio(w / c)],
                    ["engine: the whole statistics screen after a check-in", format(a), ratio(a / c)],
                    [
                        "engine: the whole statistics screen, shown again (kept)", format(median(kept)),
                        ratio(median(kept) / c),
                    ],
                ]))
        print(
            """

            computed = HabitStatistics.computed: read trackers, schedules and check-ins from SQLite, compute the
            facts (runs of scheduled days done, per-day counts), build the libjq input, evaluate every habit_stat rule;
            nothing kept = the store's derived cache emptied first (a first screen); after a check-in = one tracker's
            day checked or unchecked first (not timed): its days are read again, the other trackers' are kept.
            kept = HabitStatistics.json when the user's habit data version and the rules are unchanged: one read.
            raw libjq = jq_start/jq_next of each rule's text on a jv parsed once, outputs freed, summed.
            """)
        try CheckinCost(options: options, evaluator: evaluator).run()
    }

    /// 20 trackers (16 habits with 1–7 weekdays, a schedule change a year in, 4 irregular), every
    /// scheduled day of 2024–2026 done with probability 0.8, irregular events twice a week.
    private func seed(_ store: SQLiteStore) throws -> Int {
        let user = "bench-user"
        try store.ensureUser(user, firstSeenAt: 0)
        let start = CivilDate("2024-01-01")!
        let end = CivilDate("2026-12-31")!
        var random = SplitMix(seed: 7)
        var count = 0
        try store.transaction {
            for n in 0..<20 {
                let irregular = n >= 16
                let days = CivilDate.weekdays.filter { _ in random.next() % 10 < 6 }
                let schedule = days.isEmpty ? ["mon"] : days
                let tracker = HabitTracker(
                    id: "t\(n)", name: "Tracker \(n)", kind: irregular ? .irregular : .habit,
                    createdOn: start.description,
                    createdAt: 0,
                    schedules: irregular ? [] : [HabitSchedule(fromDate: start.description, days: schedule)])
                try store.applyHabitChange(.trackerCreated(tracker), user: user, at: 0, event: nil)
                if !irregular {
                    let later = Array(CivilDate.weekdays.shuffled(using: &random).prefix(1 + n % 7))
                    try store.applyHabitChange(
                        .scheduleChanged(
                            trackerID: tracker.id, schedule: HabitSchedule(fromDate: "2025-01-01", days: later)),
                        user: user, at: 0, event: nil)
                }
                let full = try store.habitTrackers(user: user).first { $0.id == tracker.id }!
                var date = start
                while date <= end {
                    let scheduled =
                        irregular
                        ? random.next() % 7 < 2 : full.schedule(on: date.description)!.days.contains(date.weekday)
                    if scheduled, irregular || random.next() % 10 < 8 {
                        try store.applyHabitChange(
                            .checked(HabitCheckin(trackerID: tracker.id, date: date.description)), user: user, at: 0,
                            event: nil)
                        count += 1
                    }
                    date = date.adding(days: 1)
                }
            }
        }
        return count
    }

}

/// One check-in (checked, then unchecked again, through the ingest path) on a tracker checked
/// every day of its life, 30, 400 and 1,000 days old: made in time order, it reads none of the
/// tracker's earlier check-ins (the tracker keeps its latest streak, read back once by its
/// first check-in: one pair before the rounds, not timed), and nothing it reads or writes grows
/// with the tracker's history.
struct CheckinCost {
    var options: BenchmarkOptions
    var evaluator: RuleEvaluator
    static let today = CivilDate("2026-11-30")!

    func run() throws {
        let path = NSTemporaryDirectory() + "journey-bench-checkins-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path, schema: Features.all.schema)
        for age in [30, 400, 1000] { try seed(store, user: "aged-\(age)", age: age) }
        let receivedAt = Double(Self.today.day) * 86_400 + 43_200
        let ingestor = Features.all.makeIngestor(
            store: store, evaluator: evaluator, policy: IngestPolicy(clock: { receivedAt }), cores: 1)
        var young: [Double] = []
        var year: [Double] = []
        var old: [Double] = []
        var counter = 0
        func pair(_ user: String) {
            counter += 1
            let at = Timestamp.format(Double(Self.today.day) * 86_400 + Double(counter))
            for type in ["habit_checked", "habit_unchecked"] {
                let event: JSON = .object([
                    "event_id": .string("\(type)-\(counter)"), "user_id": .string(user), "type": .string(type),
                    "occurred_at": .string(at), "payload": ["tracker_id": "walk"],
                ])
                _ = ingestor.ingest([event])
            }
        }
        func pairs(_ user: String) -> Double { measure(options.iterations) { pair(user) } }
        for age in [30, 400, 1000] { _ = measure(1) { pair("aged-\(age)") } }
        for _ in 0..<options.rounds {
            young.append(checkinsOnATrackerAged30 { pairs("aged-30") })
            year.append(checkinsOnATrackerAged400 { pairs("aged-400") })
            old.append(checkinsOnATrackerAged1000 { pairs("aged-1000") })
        }
        print(
            """

            A check-in and its uncheck (two events through the ingest path, one transaction each) on a tracker
            checked every day since it was created, \(options.iterations) per round and side, medians:
            """)
        print(
            table(
                header: ["tracker", "µs per check-in + uncheck", "× 30 days"],
                rows: [
                    ["30 days old", format(median(young)), "1.00×"],
                    ["400 days old", format(median(year)), ratio(median(year) / median(young))],
                    ["1,000 days old", format(median(old)), ratio(median(old) / median(young))],
                ]))
    }

    /// A tracker scheduled every day, created `age` days before today and checked every day since.
    private func seed(_ store: SQLiteStore, user: String, age: Int) throws {
        let created = Self.today.adding(days: -age)
        try store.ensureUser(user, firstSeenAt: 0)
        try store.transaction {
            try store.applyHabitChange(
                .trackerCreated(
                    HabitTracker(
                        id: "walk", name: "Walk", kind: .habit, createdOn: created.description, createdAt: 0,
                        schedules: [HabitSchedule(fromDate: created.description, days: CivilDate.weekdays)])),
                user: user, at: 0, event: nil)
            for offset in 0..<age {
                try store.applyHabitChange(
                    .checked(HabitCheckin(trackerID: "walk", date: created.adding(days: offset).description)),
                    user: user, at: 0, event: nil)
            }
        }
    }

    // Two functions, so that callgrind counts each side's instructions apart.
    @inline(never) private func checkinsOnATrackerAged30(_ body: () -> Double) -> Double { body() }
    @inline(never) private func checkinsOnATrackerAged400(_ body: () -> Double) -> Double { body() * 1 }
    @inline(never) private func checkinsOnATrackerAged1000(_ body: () -> Double) -> Double { body() + 0 }
}

/// Microseconds per call of `body`, over `iterations` calls; `setUp` runs before each call, not timed.
private func measure(_ iterations: Int, setUp: () -> Void = {}, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var total = Duration.zero
    for _ in 0..<iterations {
        setUp()
        let start = clock.now
        body()
        total += clock.now - start
    }
    let (seconds, attoseconds) = total.components
    return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations) / 1000
}

private func format(_ microseconds: Double) -> String { String(format: "%.0f", microseconds) }
private func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }

/// A small deterministic generator (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
