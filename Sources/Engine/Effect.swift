import Core
import JQ
import Store

/// What the engine decided because of an event. Consumers return effects; the ingest path
/// writes the event and all of its effects in one transaction.
public enum Effect: Sendable, Equatable {
    /// A dog was registered (its profile is stored).
    case dogRegistered(DogProfile)
    /// A dated profile record was added.
    case recordAdded(ProfileRecord)
    /// A step (`theory`, `check`, `action`) of a journey block was completed.
    case blockStepCompleted(dogID: String, blockID: String, step: String)
    /// An onboarding step was completed (or skipped), at `at` (nil: when the event happened; a
    /// timer step is done when its time ran out).
    case onboardingStepCompleted(
        flow: String, stepID: String, skipped: Bool, durationSeconds: Double?, at: Double? = nil)
    /// A user started an onboarding flow (`flow` is its key: id and major version), in
    /// `variant`, at `version`; for a returning user, the version seen is updated.
    case onboardingFlowStarted(flow: String, variant: String, version: String)
    /// An onboarding step became the one shown to the user.
    case onboardingStepShown(flow: String, stepID: String, at: Double? = nil)
    /// A change to the user's habit trackers, categories or check-ins.
    case habitChanged(HabitChange)
    /// A user joined a challenge (on a head-to-head side).
    case challengeJoined(challengeID: String, team: String?)
    /// A community challenge's group reached its target.
    case challengeGroupCompleted(challengeID: String)
    /// A user's progress in a challenge grew by `delta`.
    case challengeProgress(challengeID: String, delta: Double)
    /// A user completed a challenge.
    case challengeCompleted(challengeID: String)
    /// XP or a badge.
    case rewardGranted(reward: String, amount: Double?, badgeID: String?, reason: String?)
    /// A reminder for the app's push sender.
    case reminderScheduled(Reminder)
    /// An event for the analytics outbox.
    case analyticsEvent(name: String, properties: JSONObject)
    /// A dog's journey map was built (at registration); `catalog` is the content it refers to,
    /// kept once under `catalogHash`.
    case manifestCreated(StoredManifest, catalogHash: String, catalogText: String)
    /// A check was answered: what to tell the user, and whether the check step is done.
    case checkAnswered(dogID: String, blockID: String, checkType: String, interpretation: String?, complete: Bool)
    /// A journey block was completed; `nextBlock` is the one block offered next.
    case blockCompleted(dogID: String, blockID: String, nextBlock: String?)

    /// The snake_case name used in JSON (`record_added`, …).
    public var typeName: String {
        switch self {
        case .dogRegistered: "dog_registered"
        case .recordAdded: "record_added"
        case .blockStepCompleted: "block_step_completed"
        case .onboardingStepCompleted: "onboarding_step_completed"
        case .onboardingFlowStarted: "onboarding_flow_started"
        case .onboardingStepShown: "onboarding_step_shown"
        case .habitChanged: "habit_changed"
        case .challengeJoined: "challenge_joined"
        case .challengeGroupCompleted: "challenge_group_completed"
        case .challengeProgress: "challenge_progress"
        case .challengeCompleted: "challenge_completed"
        case .rewardGranted: "reward_granted"
        case .reminderScheduled: "reminder_scheduled"
        case .analyticsEvent: "analytics_event"
        case .manifestCreated: "manifest_created"
        case .checkAnswered: "check_answered"
        case .blockCompleted: "block_completed"
        }
    }

    /// Every effect type, as named in JSON.
    public static let typeNames = [
        "dog_registered", "record_added", "block_step_completed", "onboarding_step_completed",
        "onboarding_flow_started", "onboarding_step_shown", "habit_changed", "challenge_joined",
        "challenge_group_completed", "challenge_progress",
        "challenge_completed",
        "reward_granted", "reminder_scheduled", "analytics_event", "manifest_created", "check_answered",
        "block_completed",
    ]

    /// The effect types rules may produce.
    public static let ruleTypeNames = [
        "record_added", "block_step_completed", "onboarding_step_completed", "challenge_progress",
        "challenge_completed", "reward_granted", "reminder_scheduled", "analytics_event",
    ]

    /// A short label for text output: `record_added(weight)`.
    public var label: String {
        switch self {
        case .dogRegistered(let dog): "dog_registered(\(dog.id))"
        case .recordAdded(let record): "record_added(\(record.kind))"
        case .blockStepCompleted(_, let block, let step): "block_step_completed(\(block)/\(step))"
        case .onboardingStepCompleted(let flow, let step, _, _, _): "onboarding_step_completed(\(flow)/\(step))"
        case .onboardingFlowStarted(let flow, let variant, _): "onboarding_flow_started(\(flow)/\(variant))"
        case .onboardingStepShown(let flow, let step, _): "onboarding_step_shown(\(flow)/\(step))"
        case .challengeJoined(let challenge, _): "challenge_joined(\(challenge))"
        case .challengeGroupCompleted(let challenge): "challenge_group_completed(\(challenge))"
        case .habitChanged(let change): "habit_changed(\(change.json["change"]?.stringValue ?? ""))"
        case .challengeProgress(let challenge, let delta):
            "challenge_progress(\(challenge) +\(JSON.format(number: delta)))"
        case .challengeCompleted(let challenge): "challenge_completed(\(challenge))"
        case .rewardGranted(let reward, _, _, _): "reward_granted(\(reward))"
        case .reminderScheduled(let reminder): "reminder_scheduled(\(reminder.kind))"
        case .analyticsEvent(let name, _): "analytics_event(\(name))"
        case .manifestCreated(let manifest, _, _): "manifest_created(\(manifest.dogID))"
        case .checkAnswered(_, let block, let type, _, let complete):
            "check_answered(\(block)/\(type)\(complete ? "" : ", open"))"
        case .blockCompleted(_, let block, let next): "block_completed(\(block)\(next.map { " → \($0)" } ?? ""))"
        }
    }
}
