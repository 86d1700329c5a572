import CheckPlugins
import Core
import Engine
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// Finishing a ``BlockFlow``: steps marked done, completions moved when an earlier answer
/// arrives late, analytics, records and the return reminder of a completed block.
extension BlockFlow {
    /// Marks `step` of `block` done at `time` (default: the event's).
    mutating func complete(_ step: String, of block: JourneyMap.Block, at time: Double? = nil) {
        let at = time ?? event.occurredAt
        let done = state.steps[block.id] ?? []
        if done.contains(step) {
            // Done already, but later than this (an event that arrived late): it moves back.
            if let kept = keptStepTimes["\(block.id)/\(step)"],
                at < min(kept, movedSteps["\(block.id)/\(step)"] ?? kept)
            {
                effects.append(
                    .blockStepCompleted(dogID: dog.id, blockID: block.id, step: step, at: time == nil ? nil : at))
                movedSteps["\(block.id)/\(step)"] = at
            }
            return
        }
        guard !newSteps.contains(where: { $0.blockID == block.id && $0.step == step }) else { return }
        newSteps.append(BlockStep(blockID: block.id, step: step, completedAt: at))
        effects.append(.blockStepCompleted(dogID: dog.id, blockID: block.id, step: step, at: time == nil ? nil : at))
    }

    mutating func analytics(_ name: String, _ properties: JSONObject, at time: Double? = nil) {
        var properties = properties
        properties["dog_id"] = .string(dog.id)
        effects.append(
            Effect.analyticsEvent(name: name, properties: properties).dated(
                time ?? event.occurredAt, eventTime: event.occurredAt))
    }

    /// The effects, with each block this event completed: what changed, the one next block
    /// offered, its return reminder and the analytics.
    mutating func finish() throws -> [Effect] {
        let starts = newSteps.filter { $0.step == "started" }.map { ($0.blockID, $0.completedAt) }
        // Blocks whose start moved back to an earlier time.
        let movedStarts = movedSteps.compactMap { key, at in
            key.hasSuffix("/started") ? (String(key.dropLast("/started".count)), at) : nil
        }
        for (blockID, startedAt) in starts + movedStarts {
            if let block = state.map.block(blockID) { try catchUpAction(of: block, startedAt: startedAt) }
        }
        var changed = try moveCompletions()
        guard !newSteps.isEmpty else {
            try reviseLaterCompletions(than: changed)
            return effects
        }
        let after = try state.adding(newSteps, evaluator: evaluator, now: event.occurredAt)
        for blockID in Set(newSteps.map(\.blockID)).sorted()
        where !state.isCompleted(blockID) && after.isCompleted(blockID) {
            guard let block = state.map.block(blockID) else { continue }
            // Completed when its last step was done, in time order (this event may have
            // arrived after a later one).
            let completedAt = completionTime(of: blockID) ?? event.occurredAt
            changed[blockID] = completedAt
            let (then, thenAfter) = try states(around: completedAt, completing: blockID, before: state, after: after)
            let next = BlockResult.next(after: block, before: then, after: thenAfter)
            let reminder = returnReminder(of: block, completedAt: completedAt)
            var completed = BlockCompletedEffect(
                dogID: dog.id, blockID: blockID, nextBlock: next?.id, nextReason: next?.reason)
            // What the owner is told is in the owner's locale (the course's title too).
            let texts = try ownerTexts()
            let ownerMap = try ownerMap(locale: texts.locale) ?? state.map
            completed.changes = BlockResult.changes(
                of: ownerMap.block(blockID) ?? block, map: ownerMap, records: try records(of: block),
                courseStarted: block.actionType == "start_course", texts: texts)
            if let reminder {
                var summary: JSONObject = [
                    "kind": .string(reminder.kind), "due_at": .string(Timestamp.format(reminder.dueAt)),
                ]
                for key in ["text", "leads_to"] { summary[key] = reminder.payload[key] }
                summary["text"] = summary["text"].map { DeferredText.rendered($0, texts: texts) }
                completed.returnReminder = .object(summary)
            }
            effects.append(.blockCompleted(completed))
            analytics(
                "block_completed", ["block_id": .string(blockID), "next_block": next.map { .string($0.id) } ?? .null],
                at: completedAt)
            if let reminder { effects.append(.reminderScheduled(reminder)) }
        }
        try reviseLaterCompletions(than: changed)
        return effects
    }

    /// Blocks completed after one this event completed (or completed sooner) whose events
    /// arrived first: the block offered next, in their analytics, is the one of time order.
    mutating func reviseLaterCompletions(than changed: [String: Double]) throws {
        guard let earliest = changed.values.min() else { return }
        for blockID in state.steps.keys.sorted() where state.isCompleted(blockID) && changed[blockID] == nil {
            guard let block = state.map.block(blockID), let completedAt = completionTime(of: blockID),
                completedAt > earliest
            else { continue }
            try reviseCompletionAnalytics(of: block, completedAt: completedAt, moved: false)
        }
    }

    /// `block`'s `block_completed` analytics (not yet sent) as of its completion at `time`
    /// (`moved` there): the block offered next then.
    mutating func reviseCompletionAnalytics(
        of block: JourneyMap.Block, completedAt time: Double, moved: Bool
    ) throws {
        let (then, thenAfter) = try states(around: time, completing: block.id)
        let next = BlockResult.next(after: block, before: then, after: thenAfter)
        effects.append(
            JourneyAnalyticsRevisedEffect(
                dogID: dog.id, blockID: block.id, name: "block_completed", at: moved ? time : nil,
                properties: ["next_block": next.map { .string($0.id) } ?? .null], replacing: false
            ).effect)
    }

    /// The journey just before and just after `blockID` was completed at `time`: `before` and
    /// `after` this event, unless steps kept were done after that time (their events arrived
    /// first), which are then left out: the block offered next is the one it was in time order.
    func states(
        around time: Double, completing blockID: String, before: JourneyState? = nil, after: JourneyState? = nil
    ) throws -> (JourneyState, JourneyState) {
        let all = (keptSteps + newSteps).map { step in
            var step = step
            step.completedAt = self.time(of: step.step, in: step.blockID) ?? step.completedAt
            return step
        }
        if let before, let after, !all.contains(where: { $0.completedAt > time }) { return (before, after) }
        let then = try JourneyState(
            map: state.map,
            steps: all.filter { $0.completedAt < time || ($0.completedAt == time && $0.blockID != blockID) },
            evaluator: evaluator, now: time)
        let thenAfter = try JourneyState(
            map: state.map, steps: all.filter { $0.completedAt <= time }, evaluator: evaluator, now: time)
        return (then, thenAfter)
    }

    /// When `step` of `blockID` is done, as far as this event knows.
    func time(of step: String, in blockID: String) -> Double? {
        let key = "\(blockID)/\(step)"
        let new = newSteps.first { $0.blockID == blockID && $0.step == step }?.completedAt
        return [movedSteps[key], new, keptStepTimes[key]].compactMap { $0 }.min()
    }

    /// When the last of `blockID`'s completing steps was done (nil: not completed).
    func completionTime(of blockID: String, keptOnly: Bool = false) -> Double? {
        var latest = -Double.infinity
        for step in JourneyState.completingSteps {
            guard let at = keptOnly ? keptStepTimes["\(blockID)/\(step)"] : time(of: step, in: blockID) else {
                return nil
            }
            latest = max(latest, at)
        }
        return latest
    }

    /// Blocks completed before this event whose steps it moved back: completed sooner, their
    /// analytics and return reminder move with them.
    mutating func moveCompletions() throws -> [String: Double] {
        var moved: [String: Double] = [:]
        for blockID in Set(movedSteps.keys.compactMap { $0.split(separator: "/").first.map(String.init) }).sorted()
        where state.isCompleted(blockID) {
            guard let block = state.map.block(blockID), let kept = completionTime(of: blockID, keptOnly: true),
                let now = completionTime(of: blockID), now < kept
            else { continue }
            moved[blockID] = now
            try reviseCompletionAnalytics(of: block, completedAt: now, moved: true)
            if let earlier = returnReminder(of: block, completedAt: kept),
                let sooner = returnReminder(of: block, completedAt: now)
            {
                effects.append(
                    ReturnReminderMovedEffect(
                        dogID: dog.id, blockID: blockID, kind: sooner.kind, from: earlier.dueAt, to: sooner.dueAt
                    ).effect)
            }
        }
        return moved
    }

    /// The records `block` added: stored by its earlier steps, added by this event's check,
    /// and — when this event performed its action — what the app event itself added.
    func records(of block: JourneyMap.Block) throws -> [ProfileRecord] {
        var records = try store.records(dog: dog.id, block: block.id)
        let actionNow = newSteps.contains { $0.blockID == block.id && $0.step == "action" }
        for effect in effects + (actionNow ? earlierEffects : []) {
            guard case .recordAdded(let record) = effect, record.dogID == dog.id else { continue }
            if record.blockID == block.id || (record.blockID == nil && actionNow) { records.append(record) }
        }
        return records
    }

    /// The reminder a completed block schedules for the return ("weigh Q again in 2 weeks").
    func returnReminder(of block: JourneyMap.Block, completedAt: Double) -> Reminder? {
        guard case .object(let reminder)? = block.content["reminder"],
            let delay = reminder["after"]?.stringValue.flatMap(DurationText.parse)
        else { return nil }
        // The text is the catalog's locale text, written in the recipient's locale when read.
        let written = state.map.render(reminder["text"]?.stringValue ?? "")
        var payload: JSONObject = [
            "text": DeferredText.json(
                CatalogTexts.blockKey(block.id, "reminder.text"), ["name": .string(dog.name)], default: written),
            "block_id": .string(block.id),
        ]
        if let target = reminder["block"]?.stringValue { payload["leads_to"] = .string(target) }
        return Reminder(
            userID: event.userID, dogID: dog.id, kind: reminder["kind"]?.stringValue ?? "return",
            dueAt: completedAt + delay.seconds, payload: .object(payload))
    }
}
