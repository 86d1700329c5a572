import Core
import JQ
import Store

/// Where users drop out of a flow: per step, how many reached the step, completed it, skipped
/// it, and the median time it took — per variant, and in total over the variants.
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

    /// The funnel over every variant: steps matched by id, each counted over the users of the
    /// variants that have it. A step only some variants have stands where those variants have
    /// it: before the next step they share with the others.
    public struct Total: Sendable, Equatable {
        public var variants: [String]
        public var started: Int
        public var finished: Int
        public var steps: [Step]
        /// Per step id, the variants that have the step.
        public var stepVariants: [String: [String]]
    }

    public var flow: String
    public var key: String
    public var variants: [Variant]
    public var total: Total

    /// The funnel of `flow` from every user's kept progress.
    public init(flow: OnboardingFlow, store: any Store) throws {
        let histories = try store.onboardingHistories(flow: flow.key)
        self.init(flow: flow, histories: Array(histories.values))
    }

    public init(flow: OnboardingFlow, histories: [OnboardingFlowProgress]) {
        self.flow = flow.id
        self.key = flow.key
        var durations: [String: [Double]] = [:]  // per step id, over every variant
        let variants = flow.variants.map { variant in
            let users = histories.filter { $0.variant == variant.name }
            let steps = variant.steps.map { step in
                var reached = 0
                var completed = 0
                var skipped = 0
                var times: [Double] = []
                for user in users {
                    let done = user.steps[step.id]
                    guard user.shownAt[step.id] != nil || done != nil else { continue }
                    reached += 1
                    guard let done else { continue }
                    if done.skipped {
                        skipped += 1
                    } else {
                        completed += 1
                        if let shown = user.shownAt[step.id] {
                            times.append(StepDuration.seconds(from: shown, to: done.completedAt))
                        }
                    }
                }
                durations[step.id, default: []] += times
                return Step(
                    id: step.id, reached: reached, completed: completed, skipped: skipped,
                    medianDurationSeconds: Self.median(times))
            }
            let finished = users.filter { user in variant.steps.allSatisfy { user.steps[$0.id] != nil } }.count
            return Variant(name: variant.name, started: users.count, finished: finished, steps: steps)
        }
        self.variants = variants
        let order = Self.mergedOrder(variants.map { $0.steps.map(\.id) })
        var stepVariants: [String: [String]] = [:]
        let steps = order.map { id in
            let having = variants.filter { $0.steps.contains { $0.id == id } }
            stepVariants[id] = having.map(\.name)
            let counted = having.compactMap { $0.steps.first { $0.id == id } }
            return Step(
                id: id, reached: counted.map(\.reached).reduce(0, +), completed: counted.map(\.completed).reduce(0, +),
                skipped: counted.map(\.skipped).reduce(0, +), medianDurationSeconds: Self.median(durations[id] ?? []))
        }
        total = Total(
            variants: variants.map(\.name), started: variants.map(\.started).reduce(0, +),
            finished: variants.map(\.finished).reduce(0, +), steps: steps, stepVariants: stepVariants)
    }

    /// Every step id of `variants` (each in its order) once: the first variant's, then each
    /// other step before the next step of its variant already placed (at the end if none is).
    static func mergedOrder(_ variants: [[String]]) -> [String] {
        var order: [String] = []
        for steps in variants {
            for (index, id) in steps.enumerated() where !order.contains(id) {
                if let next = steps[(index + 1)...].first(where: order.contains), let at = order.firstIndex(of: next) {
                    order.insert(id, at: at)
                } else {
                    order.append(id)
                }
            }
        }
        return order
    }

    /// The middle value (the mean of the two middle ones for an even count); nil for none.
    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return StepDuration.rounded(
            sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2)
    }

    /// The step of `steps` where most of those who reached it went no further.
    public static func biggestDropOff(among steps: [Step]) -> Step? {
        steps.filter { $0.reached > 0 }.max { a, b in
            Double(a.stuck) / Double(a.reached) < Double(b.stuck) / Double(b.reached)
        }.flatMap { $0.stuck > 0 ? $0 : nil }
    }

    /// The step of `variant` where most of those who reached it went no further.
    public func biggestDropOff(in variant: Variant) -> Step? { Self.biggestDropOff(among: variant.steps) }

    /// Per variant (`byVariant`), as `{flow_id, key, variants: [...]}`; else over every variant,
    /// as `{flow_id, key, all_variants: {variant_names, ...}}` (`total` is a count elsewhere).
    public func json(byVariant: Bool) -> JSON {
        guard !byVariant else {
            return .object([
                "flow_id": .string(flow), "key": .string(key),
                "variants": .array(
                    variants.map { variant in
                        .object([
                            "variant": .string(variant.name), "started": .number(Double(variant.started)),
                            "finished": .number(Double(variant.finished)),
                            "biggest_drop_off": biggestDropOff(in: variant).map { .string($0.id) } ?? .null,
                            "steps": .array(variant.steps.map { Self.json($0) }),
                        ])
                    }),
            ])
        }
        return .object([
            "flow_id": .string(flow), "key": .string(key),
            "all_variants": .object([
                "variant_names": .array(total.variants.map(JSON.string)), "started": .number(Double(total.started)),
                "finished": .number(Double(total.finished)),
                "biggest_drop_off": Self.biggestDropOff(among: total.steps).map { .string($0.id) } ?? .null,
                "steps": .array(
                    total.steps.map { step in
                        Self.json(step, variants: total.stepVariants[step.id] ?? [])
                    }),
            ]),
        ])
    }

    private static func json(_ step: Step, variants: [String]? = nil) -> JSON {
        var object: JSONObject = ["step_id": .string(step.id)]
        if let variants { object["variant_names"] = .array(variants.map(JSON.string)) }
        object["reached"] = .number(Double(step.reached))
        object["completed"] = .number(Double(step.completed))
        object["skipped"] = .number(Double(step.skipped))
        object["stuck"] = .number(Double(step.stuck))
        object["median_duration_seconds"] = step.medianDurationSeconds.map(JSON.number) ?? .null
        return .object(object)
    }
}
