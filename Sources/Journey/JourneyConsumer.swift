import CheckPlugins
import Engine
import Foundation
import JQ
import RuleEngine
import Store

/// The Dog Journey's part in the ingest path: registration builds the journey map; the block
/// flow (start → theory → check → action) and the app's own events (a saved weight, a started
/// course…) complete steps; a completed block offers the next one and schedules its return
/// reminder. Reading alone never completes a block.
public struct JourneyConsumer: EventConsumer {
    public let name = "journey"
    /// Only a check's answer reads reminders (doing a check cancels its "remind me later").
    public func readsReminders(for event: Event) -> Bool { event.type == "check_answered" }
    let plugins: CheckPluginRegistry

    /// App events and the block action each of them performs.
    static let actions: [String: String] = [
        "weight_saved": "save_weight", "vaccine_added": "add_vaccine", "course_started": "start_course",
        "photo_uploaded": "upload_photo", "observation_recorded": "record_observation",
    ]
    /// The app's own events that can complete a block's action, with the action each performs
    /// (`weight_saved` → `save_weight`).
    public static var appEvents: [String: String] { actions }

    static let blockEvents: Set<String> = [
        "block_started", "theory_viewed", "check_answered", "auto_complete_accepted",
    ]

    /// Each catalog's age ranges, read once (a rule set's documents are cast on every read).
    let catalogAgeRanges: [[AgeRange]]

    public init(ruleSet: RuleSet, swiftPlugins: [any CheckPlugin] = []) {
        plugins = CheckPluginRegistry(ruleSet: ruleSet, swiftPlugins: swiftPlugins)
        catalogAgeRanges = ruleSet.documents(of: Catalog.self).map(\.ageRanges)
    }

    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        if event.type == "dog_registered" {
            guard let dog = context.effectsSoFar.lazy.compactMap(\.registeredDog).first else { return [] }
            return try register(dog, event: event, context: context)
        }
        let isBlockEvent = Self.blockEvents.contains(event.type)
        let action = Self.actions[event.type]
        let recorded = JourneyAnalytics.recordsAdded(event, earlier: context.effectsSoFar)
        if event.type == JourneyAnalytics.opened || event.type == JourneyAnalytics.interpretationRead {
            guard let dog = context.dog else {
                if event.type == JourneyAnalytics.opened { return recorded }
                throw Rejection(.invalid, "\(event.type) needs the `dog_id` whose interpretation was read")
            }
            guard event.type == JourneyAnalytics.opened else {
                return recorded + JourneyAnalytics.interpretationCompleted(event, dog: dog)
            }
            // A puppy registered younger than every catalog gets its journey once it grows
            // into one: the first time the journey is opened then, its manifest is built.
            let grown =
                try coveredAtRegistration(dog) || context.store.hasManifest(dog: dog.id)
                ? [] : try register(dog, event: event, context: context)
            return recorded + grown + (try JourneyAnalytics.returned(event, dog: dog, store: context.store))
        }
        guard isBlockEvent || action != nil else { return recorded }
        guard let dog = context.dog else {
            if isBlockEvent { throw Rejection(.invalid, "\(event.type) needs a `dog_id`") }
            return recorded
        }
        return recorded
            + (try flowEffects(of: event, dog: dog, isBlockEvent: isBlockEvent, action: action, context: context))
    }

    /// The completed steps of every dog whose block events or app actions the batch holds,
    /// read at once (the block flow reads a dog's steps for each of them).
    public func keepReads(for events: [Event], in store: any StoreReader) throws {
        let dogs = events.compactMap { event in
            Self.blockEvents.contains(event.type) || Self.actions[event.type] != nil ? event.dogID : nil
        }
        try store.keepBlockSteps(dogs: dogs)
        // Each open reads its user's return event and its dog's opens (``JourneyAnalytics/returned``).
        let opens = events.compactMap { event in
            event.type == JourneyAnalytics.opened ? event.dogID.map { (user: event.userID, dog: $0) } : nil
        }
        guard !opens.isEmpty else { return }
        try store.keepAnalytics(name: JourneyAnalytics.returnName, of: opens)
        try store.keepJourneyOpens(dogs: opens.map(\.dog), window: JourneyAnalytics.returnWindow)
    }

    /// The block flow's effects of a block event or an app event performing an action.
    private func flowEffects(
        of event: Event, dog: DogProfile, isBlockEvent: Bool, action: String?, context: ConsumerContext
    ) throws -> [Effect] {
        let steps = try context.store.blockSteps(dog: dog.id)
        if !isBlockEvent {
            // An app event only completes the action of a block in progress: most dogs have none.
            var done: [String: Set<String>] = [:]
            for step in steps { done[step.blockID, default: []].insert(step.step) }
            let inProgress = done.values.contains {
                !$0.contains("action") && !JourneyState.completingSteps.isSubset(of: $0)
            }
            // …or moves back an action done later (this event arrived late).
            let later = steps.contains { $0.step == "action" && $0.completedAt > event.occurredAt }
            guard inProgress || later else { return [] }
        }
        guard
            let state = try JourneyLoader.state(
                of: dog, steps: steps, store: context.store, ruleSet: context.evaluator.ruleSet)
        else {
            if isBlockEvent {
                throw Rejection(
                    .invalid,
                    "dog \(dog.id) has no journey (no catalog covered its age); once it grows into one, opening the journey (journey_opened) builds it"
                )
            }
            return []
        }
        var flow = BlockFlow(
            event: event, state: state, plugins: plugins, evaluator: context.evaluator, store: context.store,
            earlierEffects: context.effectsSoFar, keptSteps: steps)
        if let action, !isBlockEvent {
            try flow.appAction(action)
        } else {
            try flow.blockEvent()
        }
        return try flow.finish()
    }

    /// Whether a catalog covered the dog's age when it was registered (its journey was built
    /// then): no need to look for its manifest.
    private func coveredAtRegistration(_ dog: DogProfile) -> Bool {
        guard let range = ManifestBuilder.ageRange(of: dog, at: dog.registeredAt) else { return false }
        return catalogAgeRanges.contains { ranges in ranges.contains { $0.overlaps(range) } }
    }

    private func register(_ dog: DogProfile, event: Event, context: ConsumerContext) throws -> [Effect] {
        guard
            let effect = try ManifestBuilder.build(
                for: dog, ruleSet: context.evaluator.ruleSet, evaluator: context.evaluator, now: event.occurredAt),
            let manifest = effect.feature(ManifestCreatedEffect.self)?.manifest
        else { return [] }
        let insights = manifest.manifest["insights"]?.arrayValue?.count ?? 0
        return [
            effect,
            .analyticsEvent(
                name: "ai_interpretation_generated",
                properties: [
                    "dog_id": .string(dog.id), "insights": .number(Double(insights)),
                    "recommended_first": manifest.manifest["recommended_first"] ?? .null,
                ]),
        ]
    }
}

extension Effect {
    /// The profile of a `dog_registered` effect.
    var registeredDog: DogProfile? {
        if case .dogRegistered(let dog) = self { return dog }
        return nil
    }
}
