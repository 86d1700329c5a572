import CheckPlugins
import Core
import Engine
import FeatureKit
import Foundation
import JQ
import RuleEngine
import Store

/// The effects of one journey event on one dog: steps done, records, reminders, analytics,
/// and for each block this event completes, the next block offered.
struct BlockFlow {
    let event: Event
    let state: JourneyState
    let plugins: CheckPluginRegistry
    let evaluator: RuleEvaluator
    let store: any StoreReader
    /// What the consumers before the journey made of this event (the record a saved weight adds).
    let earlierEffects: [Effect]
    /// When each step kept was done (`block/step`).
    let keptStepTimes: [String: Double]
    /// The steps kept, as they were before this event.
    let keptSteps: [BlockStep]
    private var effects: [Effect] = []
    private var newSteps: [BlockStep] = []
    /// Steps kept that this event moved back to an earlier time (`block/step`).
    private var movedSteps: [String: Double] = [:]

    init(
        event: Event, state: JourneyState, plugins: CheckPluginRegistry, evaluator: RuleEvaluator,
        store: any StoreReader, earlierEffects: [Effect] = [], keptSteps: [BlockStep] = []
    ) {
        self.event = event
        self.earlierEffects = earlierEffects
        self.keptSteps = keptSteps
        keptStepTimes = Dictionary(keptSteps.map { ("\($0.blockID)/\($0.step)", $0.completedAt) }) { a, _ in a }
        self.state = state
        self.plugins = plugins
        self.evaluator = evaluator
        self.store = store
    }

    private var dog: DogProfile { state.map.dog }

    /// The texts of the dog's owner (their profile's locale, else the default): what the
    /// result of this event says to them. A failed read is thrown, never taken for "no
    /// profile": on PostgreSQL it has aborted the ingest's transaction.
    private func ownerTexts() throws -> RequestTexts {
        let profile = try store.userProfile(event.userID)
        return RequestTexts.choose(profile: profile, acceptLanguage: nil, catalog: evaluator.ruleSet.texts)
    }

    /// `block`'s content in the owner's locale: what a check's plugin answers with (its labels
    /// and interpretations are the catalog's locale texts).
    private func ownerContent(of block: JourneyMap.Block) throws -> JSON {
        try ownerMap(locale: ownerTexts().locale)?.block(block.id)?.content ?? block.content
    }

    /// The dog's map in the owner's `locale`; nil when it is the one this flow has (the default's).
    private func ownerMap(locale: String) throws -> JourneyMap? {
        guard locale != evaluator.ruleSet.texts.defaultLocale else { return nil }
        return try JourneyLoader.map(of: dog, store: store, ruleSet: evaluator.ruleSet, locale: locale)
    }

    // MARK: Block events

    /// `block_started`, `theory_viewed`, `check_answered`, `auto_complete_accepted`.
    mutating func blockEvent() throws {
        guard case .string(let id)? = event.payload["block_id"] else {
            throw Rejection(.invalid, "\(event.type) needs `payload.block_id`")
        }
        guard let block = state.map.block(id) else {
            throw Rejection(.invalid, "\(dog.name)'s journey has no block `\(id)`")
        }
        if let locked = state.lockedMessage(id) { throw Rejection(.invalid, locked) }
        switch event.type {
        case "block_started":
            complete("started", of: block)
            try countStart(of: block)
        case "theory_viewed":
            let cards = block.content["theory"]?.arrayValue?.count ?? 0
            if case .number(let card)? = event.payload["card"], card < 0 || card >= Double(cards) {
                throw Rejection(
                    FieldError(
                        .outOfRange, at: "/payload/card",
                        "is \(JSON.format(number: card)); block `\(id)` has \(cards) theory cards, numbered 0 to \(cards - 1)"
                    ))
            }
            complete("started", of: block)
            // A card before the last one only marks the block started.
            if case .number(let card)? = event.payload["card"], Int(card) < cards - 1 { break }
            complete("theory", of: block)
        case "check_answered":
            try answerCheck(of: block)
        default:
            try acceptAutoComplete(of: block)
        }
    }

    /// `block_started` analytics count each block's first opening only: re-opening a started
    /// or completed block is no new start (the funnel block_started → action_completed counts
    /// each block once). An opening that arrives late but happened first moves it back.
    private mutating func countStart(of block: JourneyMap.Block) throws {
        let others = try store.dogEvents(
            dog: dog.id, from: -Double.greatestFiniteMagnitude, filter: EventTypeFilter(types: [event.type])
        ).filter { $0.payload["block_id"]?.stringValue == block.id && $0.eventID != event.eventID }
        guard let first = others.map(\.occurredAt).min() else {
            return analytics("block_started", ["block_id": .string(block.id), "branch": .string(block.branch)])
        }
        if event.occurredAt < first {
            effects.append(
                JourneyAnalyticsRevisedEffect(
                    dogID: dog.id, blockID: block.id, name: "block_started", at: event.occurredAt, properties: [:],
                    replacing: false
                ).effect)
        }
    }

    private mutating func answerCheck(of block: JourneyMap.Block) throws {
        let (checkType, check, isFallback) = try answeredCheck(of: block)
        guard case .object(let answer)? = event.payload["answer"] else {
            throw Rejection(
                .invalid, "check_answered needs `payload.answer`, an object with the \(checkType) answer")
        }
        guard let plugin = plugins.plugin(checkType) else {
            throw Rejection(
                .invalid,
                "no plugin for check type `\(checkType)`; types: \(plugins.types.joined(separator: ", "))")
        }
        // The kind's window: the block's newest earlier records, whatever its history.
        let earlier = try store.earlierRecords(
            dog: dog.id, block: block.id, source: "journey", at: event.occurredAt, limit: CheckContext.recordWindow)
        let context = CheckContext(
            dog: dog, blockID: block.id, occurredAt: event.occurredAt, occurredAtText: event.occurredAtText,
            localTime: LocalTime.text(event.occurredAt, timezone: dog.timezone),
            earlierRecords: earlier.map {
                ["kind": .string($0.kind), "recorded_at": .string($0.recordedAtText), "payload": $0.payload]
            })
        let outcome = try plugin.outcome(of: .object(answer), content: check, context: context, evaluator: evaluator)
        complete("started", of: block)
        // A hands_on check on a health topic: its result and its records say it does not replace a vet.
        let vetCaption =
            checkType == "hands_on" && block.branch == "health" ? try ownerTexts()(JourneyViews.vetCaptionKey) : nil
        for record in outcome.records {
            var payload = record.payload
            // A record keeps text, not keys: a note the plugin gives as a key is written in
            // the owner's locale, as the vet caption is.
            if DeferredText.contains(.object(payload)) {
                payload = DeferredText.rendered(.object(payload), texts: try ownerTexts()).objectValue ?? payload
            }
            if let vetCaption, payload["note"] == nil { payload["note"] = .string(vetCaption) }
            effects.append(
                .recordAdded(
                    ProfileRecord(
                        dogID: dog.id, kind: record.kind, recordedAt: event.occurredAt,
                        recordedAtText: event.occurredAtText, payload: .object(payload), source: "journey",
                        ruleRevision: evaluator.ruleSet.revision, blockID: block.id)))
        }
        effects.append(
            .checkAnswered(
                dogID: dog.id, blockID: block.id, checkType: checkType, interpretation: outcome.interpretation,
                complete: outcome.completesCheck, caption: outcome.completesCheck ? vetCaption : nil))
        if let request = outcome.reminder {
            let due =
                request.localTime.flatMap { LocalTime.next($0, after: event.occurredAt, timezone: dog.timezone) }
                ?? event.occurredAt + (request.after?.seconds ?? 3 * 3600)
            // The check was done after this answer (that event arrived first): in time order
            // this reminder was cancelled when the check was done.
            let doneLater = keptStepTimes["\(block.id)/check"].map { $0 > event.occurredAt } ?? false
            effects.append(
                .reminderScheduled(
                    Reminder(
                        userID: event.userID, dogID: dog.id, kind: request.kind, dueAt: due,
                        payload: ["text": request.text, "block_id": .string(block.id)],
                        status: doneLater ? "cancelled" : "pending")))
        }
        var properties: JSONObject = ["block_id": .string(block.id), "type": .string(checkType)]
        if isFallback { properties["fallback"] = true }
        for (key, value) in outcome.analytics where key != "type" { properties[key] = value }
        if outcome.completesCheck {
            complete("check", of: block)
            analytics("check_completed", properties)
            // A "remind me later" of this check must not fire once it is done.
            let returnKind = block.content["reminder"]?["kind"]?.stringValue ?? "return"
            let pending = try store.pendingReminders(
                user: event.userID, dog: dog.id, block: block.id, except: returnKind, before: event.occurredAt)
            if !pending.isEmpty {
                effects.append(.feature(RemindersCancelledEffect(dogID: dog.id, blockID: block.id, ids: pending)))
            }
        }
        // The answer that completes the check replaces the drafts earlier answers kept.
        let checkedBefore = state.steps[block.id]?.contains("check") ?? false
        if outcome.completesCheck, !checkedBefore {
            let kinds = Set(outcome.records.map(\.kind))
            let drafts = earlier.filter { kinds.contains($0.kind) }.compactMap(\.id)
            if !drafts.isEmpty {
                effects.append(.feature(DraftRecordsReplacedEffect(dogID: dog.id, blockID: block.id, ids: drafts)))
            }
        }
        // Drafts are not counted: the records that stay are, once.
        if !outcome.records.isEmpty, outcome.completesCheck {
            analytics(
                "profile_records_added",
                ["block_id": .string(block.id), "count": .number(Double(outcome.records.count))])
        }
    }

    /// The check an answer is for: the block's own, or with `payload.fallback: true` its
    /// fallback check (type, content as written, whether it is the fallback).
    private func answeredCheck(of block: JourneyMap.Block) throws -> (String, JSON, Bool) {
        switch event.payload["fallback"] {
        case nil, .null, .bool(false):
            return (block.checkType, try ownerContent(of: block)["check"] ?? [:], false)
        case .bool(true):
            guard let check = block.fallbackCheck, let type = block.fallbackCheckType else {
                throw Rejection(
                    FieldError(
                        .invalid, at: "/payload/fallback",
                        "is true, but block `\(block.id)` has no fallback check (its check is \(block.checkType)): answer it without"
                    ))
            }
            return (type, FallbackCheck.content(of: try ownerContent(of: block)["check"]) ?? check, true)
        default:
            throw Rejection(
                FieldError(
                    .wrongType, at: "/payload/fallback", "must be true or false (true: the block's fallback check)"))
        }
    }

    private mutating func acceptAutoComplete(of block: JourneyMap.Block) throws {
        guard let rule = block.autoCompleteRule else {
            throw Rejection(.invalid, "block `\(block.id)`'s action (\(block.actionType)) has no auto-complete")
        }
        let found = try AutoComplete.evidenceCount(
            for: block, rule: rule, dog: dog, store: store, evaluator: evaluator, now: event.occurredAt,
            unlockedAt: state.unlockedAt(block.id))
        guard found > 0 else {
            throw Rejection(
                .invalid,
                "nothing to count yet for block `\(block.id)`: no \(AutoComplete.noun(block.actionType)) found")
        }
        complete("started", of: block)
        completeAction(of: block, extra: ["auto_complete": true, "evidence": .number(Double(found))])
    }

    // MARK: App events

    /// An app event performing `action` (a saved weight…): it completes the action of every
    /// started block that asks for it (and for a course, that course).
    mutating func appAction(_ action: String) throws {
        for block in state.map.blocks where block.actionType == action {
            if (state.steps[block.id] ?? []).contains("action") {
                // Done later by another event (this one arrived late): it moves back, if the
                // block had started by then.
                if let started = keptStepTimes["\(block.id)/started"], started <= event.occurredAt,
                    action != "start_course" || event.payload["course_id"]?.stringValue == block.courseID
                {
                    completeAction(of: block, extra: [:])
                }
                continue
            }
            // In progress then: started by this event's time (a start that happened later
            // but arrived first counts the app events after it, see `catchUpAction`).
            guard state.isInProgress(block.id), (time(of: "started", in: block.id) ?? .infinity) <= event.occurredAt
            else { continue }
            if action == "start_course", event.payload["course_id"]?.stringValue != block.courseID { continue }
            completeAction(of: block, extra: [:])
        }
    }

    /// A block that starts (or turns out to have started earlier: its event arrived late)
    /// counts the app events stored for its action from then on, as if they had arrived after
    /// it: the action is done at the first of them.
    private mutating func catchUpAction(of block: JourneyMap.Block, startedAt: Double) throws {
        guard let type = JourneyConsumer.actions.first(where: { $0.value == block.actionType })?.key else { return }
        let kept = keptStepTimes["\(block.id)/action"]
        let now = newSteps.first { $0.blockID == block.id && $0.step == "action" }?.completedAt
        let done = try store.dogEvents(dog: dog.id, from: startedAt, filter: EventTypeFilter(types: [type])).first {
            block.actionType != "start_course" || $0.payload["course_id"]?.stringValue == block.courseID
        }
        guard let done, done.eventID != event.eventID, done.occurredAt < (now ?? kept ?? .infinity) else { return }
        if kept != nil {
            completeAction(of: block, extra: [:], at: done.occurredAt)  // done sooner than kept: it moves back
        } else if let index = newSteps.firstIndex(where: { $0.blockID == block.id && $0.step == "action" }) {
            // Done by this event, but an app event stored before did it sooner: that one did it.
            newSteps[index].completedAt = done.occurredAt
            effects.append(.blockStepCompleted(dogID: dog.id, blockID: block.id, step: "action", at: done.occurredAt))
            effects.removeAll { $0.isAnalytics("action_completed", block: block.id) }
            analytics(
                "action_completed", actionProperties(of: block, extra: [:], at: done.occurredAt), at: done.occurredAt)
        } else {
            completeAction(of: block, extra: [:], at: done.occurredAt)
        }
    }

    /// Completes `block`'s action at `time` (default: the event's); an action kept as done
    /// later (by an event that arrived first) moves back, and its analytics say who did it.
    private mutating func completeAction(of block: JourneyMap.Block, extra: JSONObject, at time: Double? = nil) {
        let at = time ?? event.occurredAt
        var properties = actionProperties(of: block, extra: extra, at: at)
        if (state.steps[block.id] ?? []).contains("action") {
            guard let kept = keptStepTimes["\(block.id)/action"], at < kept else { return }
            complete("action", of: block, at: time)
            properties["dog_id"] = .string(dog.id)
            effects.append(
                JourneyAnalyticsRevisedEffect(
                    dogID: dog.id, blockID: block.id, name: "action_completed", at: at, properties: properties,
                    replacing: true
                ).effect)
            if block.actionType == "start_course", extra["auto_complete"] == nil {
                effects.append(
                    JourneyAnalyticsRevisedEffect(
                        dogID: dog.id, blockID: block.id, name: "course_started_from_journey", at: at, properties: [:],
                        replacing: false
                    ).effect)
            }
        } else {
            complete("action", of: block, at: time)
            if block.actionType == "start_course", extra["auto_complete"] == nil {
                analytics(
                    "course_started_from_journey",
                    ["block_id": .string(block.id), "course_id": .string(block.courseID ?? "")], at: time)
            }
            analytics("action_completed", properties, at: time)
        }
        guard properties["first_time"] == .bool(true) else { return }
        // Another block's action of this type, kept as the first, was done after this one.
        for other in state.map.blocks where other.id != block.id && other.actionType == block.actionType {
            guard let kept = keptStepTimes["\(other.id)/action"], kept > at else { continue }
            effects.append(
                JourneyAnalyticsRevisedEffect(
                    dogID: dog.id, blockID: other.id, name: "action_completed", at: nil,
                    properties: ["first_time": false], replacing: false
                ).effect)
        }
    }

    /// `action_completed`'s properties for `block`'s action done at `at`: `first_time` when no
    /// block's action of this type was done before (in time order, whatever arrived first).
    private func actionProperties(of block: JourneyMap.Block, extra: JSONObject, at: Double) -> JSONObject {
        let before = state.map.blocks.contains { other in
            other.id != block.id && other.actionType == block.actionType
                && (keptStepTimes["\(other.id)/action"].map { $0 < at } ?? false)
        }
        let earlierInThisEvent = newSteps.contains { step in
            step.step == "action" && step.blockID != block.id
                && state.map.block(step.blockID)?.actionType == block.actionType && step.completedAt <= at
        }
        var properties: JSONObject = [
            "block_id": .string(block.id), "type": .string(block.actionType),
            "first_time": .bool(!before && !earlierInThisEvent),
        ]
        for (key, value) in extra { properties[key] = value }
        return properties
    }

    // MARK: Finishing

    /// Marks `step` of `block` done at `time` (default: the event's).
    private mutating func complete(_ step: String, of block: JourneyMap.Block, at time: Double? = nil) {
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

    private mutating func analytics(_ name: String, _ properties: JSONObject, at time: Double? = nil) {
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
    private mutating func reviseLaterCompletions(than changed: [String: Double]) throws {
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
    private mutating func reviseCompletionAnalytics(
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
    private func states(
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
    private func time(of step: String, in blockID: String) -> Double? {
        let key = "\(blockID)/\(step)"
        let new = newSteps.first { $0.blockID == blockID && $0.step == step }?.completedAt
        return [movedSteps[key], new, keptStepTimes[key]].compactMap { $0 }.min()
    }

    /// When the last of `blockID`'s completing steps was done (nil: not completed).
    private func completionTime(of blockID: String, keptOnly: Bool = false) -> Double? {
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
    private mutating func moveCompletions() throws -> [String: Double] {
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
    private func records(of block: JourneyMap.Block) throws -> [ProfileRecord] {
        var records = try store.records(dog: dog.id, block: block.id)
        let actionNow = newSteps.contains { $0.blockID == block.id && $0.step == "action" }
        for effect in effects + (actionNow ? earlierEffects : []) {
            guard case .recordAdded(let record) = effect, record.dogID == dog.id else { continue }
            if record.blockID == block.id || (record.blockID == nil && actionNow) { records.append(record) }
        }
        return records
    }

    /// The reminder a completed block schedules for the return ("weigh Q again in 2 weeks").
    private func returnReminder(of block: JourneyMap.Block, completedAt: Double) -> Reminder? {
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
