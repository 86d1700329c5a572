import Core
import Foundation
import JQ
import RuleEngine
import Store

/// The status of a block. Computed, never stored.
public enum BlockStatus: String, Sendable {
    /// Theory, check and action are done.
    case completed
    /// Some block it needs is not completed.
    case locked
    /// The manifest's `recommended_block_id` while it is open, after it the rule's pick.
    case recommended
    case available
}

/// A dog's journey now: the map, the steps done, each block's status and the recommendation.
public struct JourneyState: Sendable {
    public let map: JourneyMap
    /// Completed steps by block (`started`, `theory`, `check`, `action`).
    public let steps: [String: Set<String>]
    /// When each block was started (for "Continue").
    public let startedAt: [String: Double]
    /// When each step was first done (`block/step`).
    private let stepTimes: [String: Double]
    /// The recommended block, if any is available: the manifest's while it is open, then the rule's.
    public private(set) var recommended: String?
    /// Set when the recommendation rule named a block this journey lacks, and what answered.
    public private(set) var recommendationProblem: RecommendationProblem?

    /// The steps a block needs to be completed.
    public static let completingSteps: Set<String> = ["theory", "check", "action"]

    /// Builds the state and evaluates the recommendation rule on it.
    public init(map: JourneyMap, steps: [BlockStep], evaluator: RuleEvaluator, now: Double) throws {
        self.init(map: map, steps: steps)
        try recommend(evaluator: evaluator, now: now)
    }

    /// Builds the state without a recommendation (see ``recommend(evaluator:now:)``).
    public init(map: JourneyMap, steps: [BlockStep]) {
        var byBlock: [String: Set<String>] = [:]
        var started: [String: Double] = [:]
        var times: [String: Double] = [:]
        for step in steps {
            byBlock[step.blockID, default: []].insert(step.step)
            if step.step == "started" || started[step.blockID] == nil { started[step.blockID] = step.completedAt }
            let key = step.blockID + "/" + step.step
            times[key] = min(times[key] ?? step.completedAt, step.completedAt)
        }
        self.map = map
        self.steps = byBlock
        self.startedAt = started
        self.stepTimes = times
        self.recommended = nil
        self.recommendationProblem = nil
    }

    /// The recommendation: the manifest's `recommended_block_id` (chosen once, at registration)
    /// while that block is still open (not completed, not locked); after it, the recommendation
    /// rule (its fallback if it fails) on the state. A result naming a block this journey lacks
    /// is a failure answered by the fallback; when no fallback answers (whatever the failure),
    /// nothing is recommended. Either way ``recommendationProblem`` says so.
    public mutating func recommend(evaluator: RuleEvaluator, now: Double) throws {
        let map = self.map
        recommendationProblem = nil
        if let stored = map.recommendedBlockID, baseStatus(of: stored) == .available {
            recommended = stored
            return
        }
        let options = EvaluationOptions(
            variant: nil, now: now, fallbackOnError: true,
            subject: ExperimentSubject(userID: map.dog.userID, dogID: map.dog.id),
            outputCheck: { output in Self.unknownBlock(output, in: map) })
        let result: RuleResult
        do {
            result = try evaluator.evaluate(
                JourneyRules.recommendation, input: JV(recommendationInput), options: options)
        } catch {
            // Neither the rule nor its fallback answered (a failure, a quarantine without a
            // fallback): nothing is recommended, and the problem says why.
            recommendationProblem = RecommendationProblem(dogID: map.dog.id, error: error, usedFallback: false)
            recommended = nil
            return
        }
        let pick = result.value?.stringValue
        if let error = result.primaryError, error.code == .unknownReference {
            recommendationProblem = RecommendationProblem(
                dogID: map.dog.id, error: error, usedFallback: true, fallbackAnswer: pick)
        }
        // Only an available block can be recommended; a rule picking another is ignored.
        recommended = pick.flatMap { id in baseStatus(of: id) == .available ? id : nil }
    }

    /// Nil when `output` is null or a block of `map`, else the block id described.
    static func unknownBlock(_ output: JSON, in map: JourneyMap) -> String? {
        guard case .string(let id) = output, map.block(id) == nil else { return nil }
        return UnknownBlock.describe(
            id, notIn: "\(map.dog.name)'s journey", known: map.blocks.map(\.id))
    }

    /// The state with `steps` applied on top (what an event will have done), same map.
    public func adding(_ steps: [BlockStep], evaluator: RuleEvaluator, now: Double) throws -> JourneyState {
        var all: [BlockStep] = []
        for (block, done) in self.steps {
            for step in done {
                let at = stepTimes[block + "/" + step] ?? startedAt[block] ?? now
                all.append(BlockStep(blockID: block, step: step, completedAt: at))
            }
        }
        return try JourneyState(map: map, steps: all + steps, evaluator: evaluator, now: now)
    }

    /// Whether `block` is completed.
    public func isCompleted(_ block: String) -> Bool {
        Self.completingSteps.isSubset(of: steps[block] ?? [])
    }

    /// When `block` was completed: when the last of its completing steps was done (nil: not
    /// completed).
    public func completedAt(_ block: String) -> Double? {
        var latest: Double?
        for step in Self.completingSteps {
            guard let at = stepTimes[block + "/" + step] else { return nil }
            latest = max(latest ?? at, at)
        }
        return latest
    }

    /// When `block` was unlocked: when the last of the blocks it needs was completed (nil:
    /// it needs none, or one is not completed).
    public func unlockedAt(_ block: String) -> Double? {
        let needs = map.block(block)?.needs ?? []
        let times = needs.map(completedAt)
        guard !needs.isEmpty, times.allSatisfy({ $0 != nil }) else { return nil }
        return times.compactMap { $0 }.max()
    }

    /// Whether `block` was started and is not completed.
    public func isInProgress(_ block: String) -> Bool {
        !(steps[block] ?? []).isEmpty && !isCompleted(block)
    }

    /// The blocks `block` needs that are not completed yet.
    public func missingNeeds(_ block: String) -> [String] {
        (map.block(block)?.needs ?? []).filter { !isCompleted($0) }
    }

    /// Why `block` cannot be worked on yet ("block `x` is locked: finish `y` (Y) first"); nil
    /// when it can (its needs are completed, or it is completed itself).
    func lockedMessage(_ block: String) -> String? {
        let missing = missingNeeds(block)
        guard !missing.isEmpty, !isCompleted(block) else { return nil }
        let titles = missing.compactMap { map.block($0).map { "`\($0.id)` (\($0.title))" } }
        return "block `\(block)` is locked: finish \(titles.joined(separator: " and ")) first"
    }

    /// Completed, locked or available (before the recommendation).
    func baseStatus(of block: String) -> BlockStatus {
        if isCompleted(block) { return .completed }
        if !missingNeeds(block).isEmpty { return .locked }
        return .available
    }

    /// The block's status.
    public func status(of block: String) -> BlockStatus {
        let base = baseStatus(of: block)
        return base == .available && block == recommended ? .recommended : base
    }

    /// How many blocks of `branch` are completed, of how many.
    public func progress(of branch: JourneyMap.Branch) -> (completed: Int, total: Int) {
        (branch.blocks.filter { isCompleted($0.id) }.count, branch.blocks.count)
    }

    /// The input of the recommendation rule: the dog, the branches, and every block with its
    /// status (completed, locked or available).
    public var recommendationInput: JSON {
        let blocks: [JSON] = map.blocks.map { block in
            [
                "id": .string(block.id), "branch": .string(block.branch), "position": .number(Double(block.position)),
                "title": .string(block.title), "topic": .string(block.topic),
                "needs": .array(block.needs.map(JSON.string)), "minutes": .number(Double(block.minutes)),
                "check_type": .string(block.checkType), "action": block.action,
                "status": .string(baseStatus(of: block.id).rawValue),
            ]
        }
        let branches: [JSON] = map.branches.map {
            ["id": .string($0.id), "title": .string($0.title), "order": .number(Double($0.order))]
        }
        return ["dog": map.dog.json, "branches": .array(branches), "blocks": .array(blocks)]
    }

    /// The block left half-way that was started last, if any.
    public var continueBlock: String? {
        startedAt.filter { isInProgress($0.key) }.max { $0.value < $1.value }?.key
    }
}

/// The rule ids the Dog Journey relies on.
public enum JourneyRules {
    public static let recommendation = "recommendation"
    public static let manifest = "journey.manifest"
    public static let weakestMetricNote = "note.weakest_metric"
}
