import Core
import Foundation
import JQ
import RuleEngine
import Store

/// The community challenges' daily digest: once per challenge and UTC date, every participant
/// gets a notification ("Our group has done 67% of the goal, 3 days left"), marked with the
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
                let text = message(instance, value: group?.value ?? 0, now: now)
                let participants = try store.challengeRanking(challenge: instance.id, team: nil, limit: Int.max)
                for participant in participants {
                    try store.scheduleReminder(
                        Reminder(
                            userID: participant.userID, dogID: nil, kind: "challenge_digest:\(instance.id)", dueAt: now,
                            payload: .object([
                                "challenge_id": .string(instance.id), "date": .string(date), "text": .string(text),
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

    /// "Our group has done 67% of the goal, 3 days left".
    public static func message(_ instance: ChallengeInstance, value: Double, now: Double) -> String {
        let percent = Int(ChallengeViews.percent(value, of: instance.challenge.target).rounded(.down))
        if value >= instance.challenge.target { return "Our group reached the goal: \(instance.challenge.title)!" }
        let days = Int(((instance.endsAt - now) / 86_400).rounded(.up))
        let left = days <= 0 ? "the last hours" : days == 1 ? "1 day left" : "\(days) days left"
        let done = percent == 0 && value > 0 ? "less than 1%" : "\(percent)%"
        return "Our group has done \(done) of the goal, \(left)"
    }
}
