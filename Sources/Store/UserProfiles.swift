/// What a user tells the engine about themselves (`PUT /v1/users/{user}/profile`): the locale
/// they read the app in and their time zone, kept on their `users` row (the zone is what their
/// "today" and their check-ins' dates use when a request names none).
public struct UserProfile: Sendable, Equatable {
    /// A locale code the rules have texts for (`ru`, `en`); nil when the user chose none.
    public var locale: String?
    /// An IANA time zone (`Europe/Moscow`); nil when the user gave none.
    public var timezone: String?

    public init(locale: String? = nil, timezone: String? = nil) {
        self.locale = locale
        self.timezone = timezone
    }
}

extension StoreReader {
    /// The profile of `user`; nil for a user the store has never seen.
    public func userProfile(_ user: String) throws -> UserProfile? {
        try first("SELECT locale, timezone FROM users WHERE user_id = ?", [.text(user)]) { row in
            UserProfile(locale: row.text(0), timezone: row.text(1))
        }
    }
}

extension Store {
    /// Replaces the profile of `user` (a user not seen before is first seen `now`).
    public func setUserProfile(_ user: String, _ profile: UserProfile, now: Double) throws {
        try run(
            """
            INSERT INTO users (user_id, first_seen_at, locale, timezone) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale, timezone = excluded.timezone
            """, [.text(user), .real(now), .optional(profile.locale), .optional(profile.timezone)])
    }
}
