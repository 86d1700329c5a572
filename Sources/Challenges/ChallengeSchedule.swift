import Foundation
import JQ
import RuleEngine

extension Challenge {
    /// The local calendar of a recurring challenge's time zone.
    private var calendar: Calendar? {
        guard let schedule, let zone = TimeZone(identifier: schedule.timeZone) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// Local midnight of `date` (`YYYY-MM-DD`) in the schedule's time zone.
    private func midnight(_ date: String, _ calendar: Calendar) -> Date? {
        let parts = date.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
    }

    private func next(after start: Date, _ calendar: Calendar, _ period: Schedule.Period) -> Date? {
        switch period {
        case .week: calendar.date(byAdding: .day, value: 7, to: start)
        case .month: calendar.date(byAdding: .month, value: 1, to: start)
        }
    }

    private func localDate(_ date: Date, _ calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// A recurring challenge's instances, in order: each from a local midnight to one second
    /// before the next instance starts, ids `<challenge>@<local start date>`. At most `limit`.
    public func instances(limit: Int = 10_000) -> [ChallengeInstance] {
        guard kind == .recurring, let schedule, let calendar, let first = midnight(schedule.from, calendar),
            let end = midnight(schedule.until, calendar)
        else { return [] }
        var result: [ChallengeInstance] = []
        var start = first
        while start < end, result.count < limit, let following = next(after: start, calendar, schedule.every) {
            result.append(
                ChallengeInstance(
                    id: "\(id)@\(localDate(start, calendar))", challenge: self, kind: schedule.mode,
                    startsAt: start.timeIntervalSince1970, endsAt: following.timeIntervalSince1970 - 1))
            start = following
        }
        return result
    }

    /// The instance with id `instanceID` (`<challenge>@<local start date>`), if it is one.
    public func instance(_ instanceID: String) -> ChallengeInstance? {
        guard kind == .recurring, instanceID.hasPrefix(id + "@") else { return nil }
        let date = String(instanceID.dropFirst(id.count + 1))
        return instances().first { $0.id == "\(id)@\(date)" }
    }

    /// The instance running at `time` (for a recurring challenge), or the challenge itself.
    public func instance(at time: Double) -> ChallengeInstance? {
        if kind == .recurring { return instances().first { $0.startsAt <= time && time <= $0.endsAt } }
        return plainInstance
    }

    /// A non-recurring challenge as an instance of itself.
    public var plainInstance: ChallengeInstance? {
        guard kind != .recurring, let startsAt, let endsAt else { return nil }
        return ChallengeInstance(id: id, challenge: self, kind: kind, startsAt: startsAt, endsAt: endsAt)
    }
}

/// Every challenge of a rule set.
public struct ChallengeCatalog: Sendable {
    public var challenges: [Challenge]

    public init(_ challenges: [Challenge]) {
        self.challenges = challenges
    }

    public init(ruleSet: RuleSet) {
        self.init(ruleSet.documents(of: Challenge.self))
    }

    /// The challenge or recurring instance called `id`.
    public func resolve(_ id: String) -> ChallengeInstance? {
        if let challenge = challenges.first(where: { $0.id == id }) { return challenge.plainInstance }
        guard let at = id.lastIndex(of: "@"), let challenge = challenges.first(where: { $0.id == id[..<at] }) else {
            return nil
        }
        return challenge.instance(id)
    }

    /// Every instance whose window (with grace) overlaps `[from, to]`: what can be joined or
    /// still counts events.
    public func instances(overlapping from: Double, _ to: Double) -> [ChallengeInstance] {
        challenges.flatMap { challenge -> [ChallengeInstance] in
            let all = challenge.kind == .recurring ? challenge.instances() : challenge.plainInstance.map { [$0] } ?? []
            return all.filter { $0.startsAt <= to && $0.endsAt + challenge.grace >= from }
        }
    }
}
