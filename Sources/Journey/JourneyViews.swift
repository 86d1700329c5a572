import Core
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// Why a view cannot be shown.
public struct JourneyViewError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unknownDog = "unknown_dog", noJourney = "no_journey", unknownBlock = "unknown_block", unknownBranch =
            "unknown_branch"
        /// `journey explain event`: no accepted event with that id.
        case unknownEvent = "unknown_event"
    }
    public var code: Code
    public var message: String
    /// The message with its code: `no dog q-9 [unknown_dog]`.
    public var description: String { "\(message) [\(code.rawValue)]" }
}

/// The Dog Journey's screens, derived on read from what is stored: Today, the Journey
/// overview, a branch's path, a block's preview, and the overview map.
public struct JourneyViews {
    public let store: any StoreReader
    public let evaluator: RuleEvaluator
    /// What time it is (for rules that read `now`).
    public let now: Double
    /// Told, one line each, what a view worked around: a recommendation naming a block the
    /// dog's journey lacks (``RecommendationProblem``).
    public let log: (String) -> Void
    /// The texts the views are written in (the request's locale; the default locale when
    /// none is given).
    public let texts: RequestTexts

    public init(
        store: any StoreReader, evaluator: RuleEvaluator, now: Double, texts: RequestTexts? = nil,
        log: @escaping (String) -> Void = { _ in }
    ) {
        self.store = store
        self.evaluator = evaluator
        self.now = now
        self.texts =
            texts ?? RequestTexts.choose(profile: nil, acceptLanguage: nil, catalog: evaluator.ruleSet.texts)
        self.log = log
    }

    /// The journey of `dogID` now.
    public func state(_ dogID: String) throws -> JourneyState {
        guard let dog = try store.dog(dogID) else {
            throw JourneyViewError(code: .unknownDog, message: "no dog \(dogID)")
        }
        guard
            let state = try JourneyLoader.state(
                of: dog, store: store, evaluator: evaluator, now: now, locale: texts.locale)
        else {
            throw JourneyViewError(code: .noJourney, message: "dog \(dogID) has no journey (no catalog covers its age)")
        }
        if let problem = state.recommendationProblem { log(problem.description) }
        return state
    }

    // MARK: Today

    /// One recommended card with its why-line (the dog's personal line), a Continue card for a block left half-way, and a
    /// thin progress bar per branch, and when the AI interpretation was read (null: show it first).
    public func today(_ dogID: String) throws -> JSON {
        let state = try state(dogID)
        let map = state.map
        var view: JSONObject = [
            "dog": ["id": .string(map.dog.id), "name": .string(map.dog.name)],
            "interpretation_read_at": try interpretationReadAt(map.dog.id),
        ]
        if let id = state.recommended, let block = map.block(id) {
            var card = blockCard(block, state: state)
            card["why"] = .string(map.personalLine(block))
            card["start"] = .string(start(block))
            if let offer = try offer(for: block, state: state) { card["offer"] = .string(offer) }
            if state.isInProgress(id) { card["next_step"] = .string(nextStep(of: block, state: state)) }
            view["recommended"] = .object(card)
        } else {
            view["recommended"] = .null
        }
        // Continue: the block left half-way, unless it is the recommended one (which says its next step).
        if let id = state.continueBlock, id != state.recommended, let block = map.block(id) {
            var card = blockCard(block, state: state)
            card["next_step"] = .string(nextStep(of: block, state: state))
            view["continue"] = .object(card)
        } else {
            view["continue"] = .null
        }
        view["branches"] = .array(map.branches.map { branchProgress($0, state: state) })
        return .object(view)
    }

    // MARK: Journey

    /// "6 of 21", each branch with its progress and the Recommended label, the insight cards
    /// (the AI interpretation) and when they were read.
    public func journey(_ dogID: String) throws -> JSON {
        let state = try state(dogID)
        let completed = state.map.blocks.filter { state.isCompleted($0.id) }.count
        let total = state.map.blocks.count
        let recommendedBranch = state.recommended.flatMap { state.map.block($0)?.branch }
        let branches: [JSON] = state.map.branches.map { branch in
            var object = branchProgress(branch, state: state).objectValue!
            object["is_recommended"] = .bool(branch.id == recommendedBranch)
            return .object(object)
        }
        return [
            "dog": ["id": .string(state.map.dog.id), "name": .string(state.map.dog.name)],
            "completed": .number(Double(completed)), "total": .number(Double(total)),
            "label": .string(
                texts(Self.progressKey, ["completed": .number(Double(completed)), "total": .number(Double(total))])),
            "branches": .array(branches),
            "recommended_block_id": state.recommended.map(JSON.string) ?? .null,
            "insights": DeferredText.rendered(.array(state.map.insights), texts: texts),
            "interpretation_read_at": try interpretationReadAt(state.map.dog.id),
        ]
    }

    // MARK: Branch path

    /// The branch's blocks in order with their status, the "Now" node and the index to scroll to.
    public func path(_ dogID: String, branch branchID: String) throws -> JSON {
        let state = try state(dogID)
        guard let branch = state.map.branch(branchID) else {
            throw JourneyViewError(
                code: .unknownBranch,
                message: "no branch `\(branchID)`; branches: \(state.map.branches.map(\.id).joined(separator: ", "))")
        }
        let now = nowNode(in: branch, state: state)
        let nodes: [JSON] = branch.blocks.map { block in
            var node = blockCard(block, state: state)
            node["now"] = .bool(block.id == now)
            return .object(node)
        }
        let index = branch.blocks.firstIndex { $0.id == now }
        let progress = state.progress(of: branch)
        return [
            "branch_id": .string(branch.id), "title": .string(branch.title), "nodes": .array(nodes),
            "now_block_id": now.map(JSON.string) ?? .null, "scroll_to": index.map { .number(Double($0)) } ?? .null,
            "completed": .number(Double(progress.completed)), "total": .number(Double(progress.total)),
        ]
    }

    /// The block to mark "Now" in a branch: the recommended one, else the one in progress, else
    /// the first available, else the last completed.
    func nowNode(in branch: JourneyMap.Branch, state: JourneyState) -> String? {
        let ids = branch.blocks.map(\.id)
        if let recommended = state.recommended, ids.contains(recommended) { return recommended }
        if let open = ids.first(where: state.isInProgress) { return open }
        if let available = ids.first(where: { state.status(of: $0) == .available }) { return available }
        return ids.last(where: state.isCompleted)
    }

    // MARK: Preview

    /// Exactly three lines (what you learn, the dog's personal line, the action) and
    /// "Start · N min"; for a locked block, the blocks to finish first.
    public func preview(_ dogID: String, block blockID: String) throws -> JSON {
        let state = try state(dogID)
        guard let block = state.map.block(blockID) else {
            throw JourneyViewError(
                code: .unknownBlock, message: "\(state.map.dog.name)'s journey has no block `\(blockID)`")
        }
        let map = state.map
        var view = blockCard(block, state: state)
        view["text_lines"] = .array(previewLines(block, map: map).map(JSON.string))
        view["start"] = .string(start(block))
        view["check_type"] = .string(block.checkType)
        view["finish_first"] = finishFirst(blockID, state: state)
        if state.status(of: blockID) != .locked, let offer = try offer(for: block, state: state) {
            view["offer"] = .string(offer)
        }
        return .object(view)
    }

    // MARK: Map

    /// Every node with coordinates along three lines (one per branch), read only, with the
    /// caption's numbers: "6 of 21 completed".
    public func map(_ dogID: String) throws -> JSON {
        let state = try state(dogID)
        let lines: [JSON] = state.map.branches.map { branch in
            let now = nowNode(in: branch, state: state)
            let nodes: [JSON] = branch.blocks.map { block in
                let (x, y) = block.coordinates(branchOrder: branch.order)
                return [
                    "block_id": .string(block.id), "title": .string(block.title),
                    "status": .string(state.status(of: block.id).rawValue),
                    "x": .number(x), "y": .number(y), "now": .bool(block.id == now),
                ]
            }
            return ["branch_id": .string(branch.id), "title": .string(branch.title), "nodes": .array(nodes)]
        }
        let completed = state.map.blocks.filter { state.isCompleted($0.id) }.count
        let total = state.map.blocks.count
        return [
            "dog": ["id": .string(state.map.dog.id), "name": .string(state.map.dog.name)],
            "completed": .number(Double(completed)),
            "total": .number(Double(total)),
            "caption": .string(
                texts(Self.captionKey, ["completed": .number(Double(completed)), "total": .number(Double(total))])),
            "lines": .array(lines),
        ]
    }

    // MARK: Pieces

    /// The key of the overview's "6 of 21" (`label`).
    public static let progressKey = "journey.overview.progress"
    /// The key of the map's caption: «Пройдено: 6 из 21», "6 of 21 completed".
    public static let captionKey = "journey.map.caption"

    /// The start button of `block`'s card and preview: «Начать · 4 мин».
    func start(_ block: JourneyMap.Block) -> String {
        texts(Self.startKey, ["minutes": .number(Double(block.minutes))])
    }

    /// When the AI interpretation was first reported read, else null: the app shows it first
    /// while this is null (DJ-43).
    func interpretationReadAt(_ dogID: String) throws -> JSON {
        try store.interpretationReadAt(dog: dogID).map { .string(Timestamp.format($0)) } ?? .null
    }

    /// The blocks to finish before `blockID` opens, each `{block_id, title}` (the preview's and
    /// the block route's one shape).
    func finishFirst(_ blockID: String, state: JourneyState) -> JSON {
        .array(
            state.missingNeeds(blockID).compactMap { id in
                state.map.block(id).map { ["block_id": .string($0.id), "title": .string($0.title)] }
            })
    }

    func blockCard(_ block: JourneyMap.Block, state: JourneyState) -> JSONObject {
        let done = state.steps[block.id] ?? []
        return [
            "block_id": .string(block.id), "title": .string(block.title), "branch_id": .string(block.branch),
            "status": .string(state.status(of: block.id).rawValue), "in_progress": .bool(state.isInProgress(block.id)),
            "minutes": .number(Double(block.minutes)),
            "steps_done": .array(["theory", "check", "action"].filter(done.contains).map(JSON.string)),
        ]
    }

    func branchProgress(_ branch: JourneyMap.Branch, state: JourneyState) -> JSON {
        let progress = state.progress(of: branch)
        return [
            "id": .string(branch.id), "title": .string(branch.title), "completed": .number(Double(progress.completed)),
            "total": .number(Double(progress.total)),
            "fraction": .number((Double(progress.completed) / Double(max(progress.total, 1)) * 100).rounded() / 100),
        ]
    }

    func nextStep(of block: JourneyMap.Block, state: JourneyState) -> String {
        let done = state.steps[block.id] ?? []
        return ["theory", "check", "action"].first { !done.contains($0) } ?? "done"
    }

    /// «Нашли 2 записи веса — засчитать автоматически», when the action is not done and its rule finds
    /// evidence. A rule that fails with no fallback to answer makes no offer (the view's
    /// `degraded` says so), never a failed view.
    func offer(for block: JourneyMap.Block, state: JourneyState) throws -> String? {
        guard let rule = block.autoCompleteRule, !(state.steps[block.id] ?? []).contains("action") else { return nil }
        let found: Int
        do {
            found = try AutoComplete.evidenceCount(
                for: block, rule: rule, dog: state.map.dog, store: store, evaluator: evaluator, now: now,
                unlockedAt: state.unlockedAt(block.id))
        } catch let error as RuleError {
            log("dog \(state.map.dog.id): no offer for block `\(block.id)`: \(error.message)")
            return nil
        }
        return found == 0 ? nil : AutoComplete.offer(count: found, action: block.actionType, texts: texts)
    }
}
