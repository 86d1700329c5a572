/// What a user tells the engine about themselves (`PUT /v1/users/{user_id}/profile`): the locale
/// they read the app in, their time zone and the name others see them by, kept on their
/// `users` row (the zone is what their "today" and their check-ins' dates use when a request
/// names none; the name is what a challenge's feed and ranking show of them).
public struct UserProfile: Sendable, Equatable {
    /// A locale code the rules have texts for (`ru`, `en`); nil when the user chose none.
    public var locale: String?
    /// An IANA time zone (`Europe/Moscow`); nil when the user gave none.
    public var timezone: String?
    /// The name other users see (`Анна`), checked by ``DisplayName``; nil when the user gave none.
    public var displayName: String?

    public init(locale: String? = nil, timezone: String? = nil, displayName: String? = nil) {
        self.locale = locale
        self.timezone = timezone
        self.displayName = displayName
    }
}

extension StoreReader {
    /// The profile of `user`; nil for a user the store has never seen.
    public func userProfile(_ user: String) throws -> UserProfile? {
        try first("SELECT locale, timezone, display_name FROM users WHERE user_id = ?", [.text(user)]) { row in
            UserProfile(locale: row.text(0), timezone: row.text(1), displayName: row.text(2))
        }
    }

    /// The display names of those of `users` who gave one, by user id. One query per 256
    /// users; the list is padded to a power of two (repeating a user), so that the statements
    /// a backend prepares and caches stay nine whatever the numbers asked.
    public func displayNames(of users: some Collection<String>) throws -> [String: String] {
        var names: [String: String] = [:]
        let distinct = Set(users).sorted()
        for start in stride(from: 0, to: distinct.count, by: 256) {
            var chunk = Array(distinct[start..<min(start + 256, distinct.count)])
            var size = 1
            while size < chunk.count { size *= 2 }
            chunk += Array(repeating: chunk[chunk.count - 1], count: size - chunk.count)
            let marks = Array(repeating: "?", count: size).joined(separator: ", ")
            for (user, name) in try rows(
                "SELECT user_id, display_name FROM users WHERE display_name IS NOT NULL AND user_id IN (\(marks))",
                chunk.map(SQLValue.text), { row in (row.text(0) ?? "", row.text(1) ?? "") })
            {
                names[user] = name
            }
        }
        return names
    }
}

extension Store {
    /// Replaces the profile of `user` (a user not seen before is first seen `now`).
    public func setUserProfile(_ user: String, _ profile: UserProfile, now: Double) throws {
        try run(
            """
            INSERT INTO users (user_id, first_seen_at, locale, timezone, display_name) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE
            SET locale = excluded.locale, timezone = excluded.timezone, display_name = excluded.display_name
            """,
            [
                .text(user), .real(now), .optional(profile.locale), .optional(profile.timezone),
                .optional(profile.displayName),
            ])
    }
}
