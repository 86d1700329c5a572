import Core
import FeatureKit
import Foundation
import HTTP
import Store

/// The time zone a user's "today" is in: the one the request names (`timezone`, IANA), else
/// the user's profile (theirs, or their first dog's), else UTC.
struct UserTimeZone {
    let zone: TimeZone
    /// Where it came from: `request`, `profile` or `utc`.
    let source: String

    /// The zone for `user`; `requested` must be an IANA name (else `422` naming the field).
    static func resolve(user: String, requested: String?, store: any StoreReader) throws(APIError) -> UserTimeZone {
        if let requested {
            guard let zone = TimeZone(identifier: requested) else {
                throw APIError(
                    422, "invalid_request",
                    "timezone must be an IANA time zone such as Europe/Berlin (got \(requested.prefix(64)))",
                    errors: [["field": "timezone", "message": "not an IANA time zone"]])
            }
            return UserTimeZone(zone: zone, source: "request")
        }
        let kept: String?
        do {
            let own =
                try store.first(
                    "SELECT timezone FROM users WHERE user_id = ? AND timezone IS NOT NULL", [.text(user)]
                ) { $0.text(0) } ?? nil
            let dogs =
                try store.first(
                    """
                    SELECT timezone FROM dogs WHERE user_id = ? AND timezone IS NOT NULL
                    ORDER BY registered_at, dog_id LIMIT 1
                    """, [.text(user)]
                ) { $0.text(0) } ?? nil
            kept = own ?? dogs
        } catch {
            throw APIError(503, "store_unavailable", "the store did not answer: \(error)")
        }
        if let kept, let zone = TimeZone(identifier: kept) { return UserTimeZone(zone: zone, source: "profile") }
        return UserTimeZone(zone: TimeZone(identifier: "UTC")!, source: "utc")
    }

    /// `seconds` as a date-time with this zone's offset, e.g. `2026-11-30T22:19:00-10:00`.
    func timestamp(_ seconds: Double) -> String {
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))
        let local = Timestamp.format(seconds + Double(offset))
        guard local.hasSuffix("Z"), offset != 0 else { return local }
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return String(local.dropLast()) + String(format: "%@%02d:%02d", sign, minutes / 60, minutes % 60)
    }

    /// The local date at `seconds`.
    func date(_ seconds: Double) -> CivilDate {
        CivilDate(localDateOf: timestamp(seconds)) ?? CivilDate(utc: seconds)
    }
}
