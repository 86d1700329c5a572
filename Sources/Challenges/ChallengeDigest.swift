import Core
import Foundation
import JQ
import RuleEngine
import Store

/// The community challenges' daily digest: once per challenge and UTC date, every participant
/// gets a notification («Наша группа выполнила 67% цели, осталось 3 дня», in their locale when
/// it is read: ``ChallengeTexts/digest(_:value:now:)``), marked with the
/// challenge's FCM topic (``ChallengeTopic``) so a sender may send it once to the topic; once the group has
/// reached its goal, each participant is credited (``ChallengeCrediting``) exactly once.
public enum ChallengeDigest {
    public struct Report: Sendable, Equatable {
        public var challenges: [String] = []
        public var notifications = 0
        public var completions = 0
    }

    /// Sends the digests due at `now` (a challenge already sent today is skipped); all in one
    /// transaction. Before `hour` o'clock UTC nothing is sent yet (so that a day's digest
    /// reports the day's progress, not the minutes after midnight).
    public static func run(catalog: ChallengeCatalog, store: any Store, now: Double, notBefore hour: Int = 0) throws
        -> Report
    {
        var report = Report()
        let date = String(Timestamp.format(now).prefix(10))
        let secondsIntoDay = now - (now / 86_400).rounded(.down) * 86_400
        guard secondsIntoDay >= Double(hour * 3600) else { return report }
        let running = catalog.instances(overlapping: now, now)
            .filter { $0.kind == .community && $0.challenge.active }
        try store.transaction {
            for instance in running {
                guard try store.markChallengeDigest(challenge: instance.id, date: date, at: now) else { continue }
                report.challenges.append(instance.id)
                let group = try store.challengeTotals(challenge: instance.id).first { $0.team.isEmpty }
                let text = ChallengeTexts.digest(instance, value: group?.value ?? 0, now: now)
                let participants = try store.challengeRanking(challenge: instance.id, team: nil, limit: Int.max)
                for participant in participants {
                    try store.scheduleReminder(
                        Reminder(
                            userID: participant.userID, dogID: nil, kind: "challenge_digest:\(instance.id)", dueAt: now,
                            payload: .object([
                                "challenge_id": .string(instance.id), "date": .string(date), "text": text,
                                // The same message for every participant: a sender may send it once to the topic.
                                "topic": .string(ChallengeTopic.name(of: instance.id)),
                            ])),
                        event: nil)
                    report.notifications += 1
                }
                report.completions += try ChallengeCrediting.credit(instance, catalog: catalog, store: store)
            }
        }
        return report
    }
}
