import Core
import JQ
import Store

/// Where users drop out of a flow: per variant and step, how many reached the step,
/// completed it, skipped it, and the median time it took.
public struct OnboardingFunnel: Sendable {
    public struct Step: Sendable, Equatable {
        public var id: String
        /// Users to whom the step was shown (or who got past it).
        public var reached: Int
        public var completed: Int
        public var skipped: Int
        /// Median seconds from shown to completed (completed, not skipped, steps); nil for none.
        public var medianDurationSeconds: Double?

        /// Users who reached the step and neither completed nor skipped it (yet).
        public var stuck: Int { reached - completed - skipped }
    }

    public struct Variant: Sendable, Equatable {
        public var name: String
        /// Users who started the flow in this variant.
        public var started: Int
        public var finished: Int
        public var steps: [Step]
    }

    public var flow: String
    public var key: String
    public var variants: [Variant]

    /// The funnel of `flow` from every user's kept progress.
    public init(flow: OnboardingFlow, store: any Store) throws {
        let histories = try store.onboardingHistories(flow: flow.key)
        self.init(flow: flow, histories: Array(histories.values))
    }

    public init(flow: OnboardingFlow, histories: [OnboardingFlowProgress]) {
        self.flow = flow.id
        self.key = flow.key
        variants = flow.variants.map { variant in
            let users = histories.filter { $0.variant == variant.name }
            let steps = variant.steps.map { step in
                var reached = 0
                var completed = 0
                var skipped = 0
                var durations: [Double] = []
                for user in users {
                    let done = user.steps[step.id]
                    guard user.shownAt[step.id] != nil || done != nil else { continue }
                    reached += 1
                    guard let done else { continue }
                    if done.skipped {
                        skipped += 1
                    } else {
                        completed += 1
                        if let shown = user.shownAt[step.id] { durations.append(max(0, done.completedAt - shown)) }
                    }
                }
                return Step(
                    id: step.id, reached: reached, completed: completed, skipped: skipped,
                    medianDurationSeconds: Self.median(durations))
            }
            let finished = users.filter { user in variant.steps.allSatisfy { user.steps[$0.id] != nil } }.count
            return Variant(name: variant.name, started: users.count, finished: finished, steps: steps)
        }
    }

    /// The middle value (the mean of the two middle ones for an even count); nil for none.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The step of each variant where most of those who reached it went no further.
    public func biggestDropOff(in variant: Variant) -> Step? {
        variant.steps.filter { $0.reached > 0 }.max { a, b in
            Double(a.stuck) / Double(a.reached) < Double(b.stuck) / Double(b.reached)
        }.flatMap { $0.stuck > 0 ? $0 : nil }
    }

    public var json: JSON {
        .object([
            "flow": .string(flow), "key": .string(key),
            "variants": .array(
                variants.map { variant in
                    .object([
                        "variant": .string(variant.name), "started": .number(Double(variant.started)),
                        "finished": .number(Double(variant.finished)),
                        "biggest_drop_off": biggestDropOff(in: variant).map { .string($0.id) } ?? .null,
                        "steps": .array(
                            variant.steps.map { step in
                                .object([
                                    "step_id": .string(step.id), "reached": .number(Double(step.reached)),
                                    "completed": .number(Double(step.completed)),
                                    "skipped": .number(Double(step.skipped)), "stuck": .number(Double(step.stuck)),
                                    "median_duration_seconds": step.medianDurationSeconds.map(JSON.number) ?? .null,
                                ])
                            }),
                    ])
                }),
        ])
    }
}
