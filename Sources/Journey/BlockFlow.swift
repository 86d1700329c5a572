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
    var effects: [Effect] = []
    var newSteps: [BlockStep] = []
    /// Steps kept that this event moved back to an earlier time (`block/step`).
    var movedSteps: [String: Double] = [:]

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

    var dog: DogProfile { state.map.dog }

    /// The texts of the dog's owner (their profile's locale, else the default): what the
    /// result of this event says to them. A failed read is thrown, never taken for "no
    /// profile": on PostgreSQL it has aborted the ingest's transaction.
    func ownerTexts() throws -> RequestTexts {
        let profile = try store.userProfile(event.userID)
        return RequestTexts.choose(profile: profile, acceptLanguage: nil, catalog: evaluator.ruleSet.texts)
    }

    /// `block`'s content in the owner's locale: what a check's plugin answers with (its labels
    /// and interpretations are the catalog's locale texts).
    private func ownerContent(of block: JourneyMap.Block) throws -> JSON {
        try ownerMap(locale: ownerTexts().locale)?.block(block.id)?.content ?? block.content
    }

    /// The dog's map in the owner's `locale`; nil when it is the one this flow has (the default's).
    func ownerMap(locale: String) throws -> JourneyMap? {
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
    mutating func catchUpAction(of block: JourneyMap.Block, startedAt: Double) throws {
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
}
