import Store

/// Writes effects to the store (inside the event's transaction).
enum EffectApplier {
    /// Applies `effects` of `event`, whose row is `eventRow`.
    static func apply(_ effects: [Effect], of event: Event, eventRow: Int64, to store: any Store) throws {
        for effect in effects {
            switch effect {
            case .dogRegistered(let dog):
                try store.insertDog(dog)
            case .recordAdded(let record):
                try store.insertRecord(record, event: eventRow)
            case .blockStepCompleted(let dog, let block, let step):
                _ = try store.completeBlockStep(
                    dog: dog, block: block, step: step, at: event.occurredAt, event: eventRow)
            case .onboardingStepCompleted(let flow, let step, let skipped, _, let at):
                _ = try store.completeOnboardingStep(
                    user: event.userID, flow: flow, step: step, skipped: skipped, at: at ?? event.occurredAt,
                    event: eventRow)
            case .onboardingFlowStarted(let flow, let variant, let version):
                try store.startOnboardingFlow(
                    user: event.userID, flow: flow, variant: variant, version: version, at: event.occurredAt)
            case .onboardingStepShown(let flow, let step, let at):
                try store.markOnboardingStepShown(
                    user: event.userID, flow: flow, step: step, at: at ?? event.occurredAt)
            case .challengeJoined(let challenge, let team):
                _ = try store.joinChallenge(
                    challenge: challenge, user: event.userID, team: team, at: event.occurredAt, event: eventRow)
            case .challengeGroupCompleted(let challenge):
                _ = try store.completeChallengeGroup(challenge: challenge, at: event.occurredAt)
            case .habitChanged(let change):
                try store.applyHabitChange(change, user: event.userID, at: event.occurredAt, event: eventRow)
            case .challengeProgress(let challenge, let delta):
                _ = try store.addChallengeProgress(
                    challenge: challenge, user: event.userID, delta: delta, at: event.occurredAt)
            case .challengeCompleted(let challenge):
                _ = try store.completeChallenge(challenge: challenge, user: event.userID, at: event.occurredAt)
            case .rewardGranted(let reward, let amount, let badge, let reason):
                try store.grantReward(
                    Reward(
                        reward: reward, userID: event.userID, amount: amount, badgeID: badge, reason: reason,
                        grantedAt: event.occurredAt), event: eventRow)
            case .reminderScheduled(let reminder):
                try store.scheduleReminder(reminder, event: eventRow)
            case .manifestCreated(let manifest, let hash, let catalog):
                if try !store.hasCatalogSnapshot(hash: hash) {
                    try store.insertCatalogSnapshot(hash: hash, text: catalog, at: event.occurredAt)
                }
                try store.insertManifest(manifest)
            case .checkAnswered, .blockCompleted:
                break  // what the user is told; block status is derived from the steps
            case .analyticsEvent(let name, let properties):
                try store.appendAnalytics(
                    AnalyticsEvent(
                        userID: event.userID, name: name, occurredAt: event.occurredAt, properties: properties),
                    event: eventRow)
            }
        }
    }
}
