import Foundation
import JQ
import RuleEngine

extension Challenge.Schedule {
    /// The instance windows of challenge `id`, in order: each from a local midnight (in the
    /// schedule's time zone, DST included) to one second before the next instance starts, ids
    /// `<id>@<local start date>`; at most `limit`.
    func windows(of id: String, limit: Int = 10_000) -> [Challenge.Window] {
        guard let zone = TimeZone(identifier: timeZone) else { return [] }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        func midnight(_ date: String) -> Date? {
            let parts = date.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
        }
        func next(after start: Date) -> Date? {
            switch every {
            case .week: calendar.date(byAdding: .day, value: 7, to: start)
            case .month: calendar.date(byAdding: .month, value: 1, to: start)
            }
        }
        guard var start = midnight(from), let end = midnight(until) else { return [] }
        var windows: [Challenge.Window] = []
        while start < end, windows.count < limit, let following = next(after: start) {
            let c = calendar.dateComponents([.year, .month, .day], from: start)
            let date = String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
            windows.append(
                Challenge.Window(
                    id: "\(id)@\(date)", startsAt: start.timeIntervalSince1970,
                    endsAt: following.timeIntervalSince1970 - 1))
            start = following
        }
        return windows
    }
}

extension Challenge {
    /// A recurring challenge's instances, in order (see ``Schedule/windows(of:limit:)``).
    public func instances() -> [ChallengeInstance] {
        guard kind == .recurring, let schedule else { return [] }
        return windows.map { window in
            ChallengeInstance(
                id: window.id, challenge: self, kind: schedule.mode, startsAt: window.startsAt, endsAt: window.endsAt)
        }
    }

    /// The instance with id `instanceID` (`<challenge>@<local start date>`), if it is one.
    public func instance(_ instanceID: String) -> ChallengeInstance? {
        guard kind == .recurring, let schedule, let window = windows.first(where: { $0.id == instanceID }) else {
            return nil
        }
        return ChallengeInstance(
            id: window.id, challenge: self, kind: schedule.mode, startsAt: window.startsAt, endsAt: window.endsAt)
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
