import Auth
import Core
import Store

/// How a challenge's feed and ranking name its participants to whoever reads them.
///
/// To the app, a participant is a handle: the first 50 bits of HMAC-SHA256, under a key the
/// store keeps (``Store/serviceSecret(_:now:)``), of the challenge (instance) and the user, in
/// base 32. It is the same for a participant whoever reads and wherever in one challenge,
/// another in every other challenge (handles do not link a user across challenges), and cannot
/// be computed from the user id without the key. The reader's own lines say `is_you`, and
/// `display_name` is the name the participant gave their profile (null when none), what the
/// app shows when there is one (the feed's `text` says it: «Анна: +5 км»).
/// Never the user id: it is the token's `sub`, often an e-mail or an account id. The command
/// line, which reads the store directly, names users by id.
public struct ParticipantNaming: Sendable {
    enum Form {
        case handles(key: [UInt8], viewer: String?, names: [String: String])
        case userIDs
    }

    let form: Form

    /// The name of the key in `service_secrets`.
    public static let secretName = "challenge_participant_handles"

    /// Handles under `store`'s key (made on first use), `viewer`'s lines marked as theirs.
    public static func handles(store: any Store, viewer: String?, now: Double) throws -> ParticipantNaming {
        ParticipantNaming(
            form: .handles(key: try store.serviceSecret(secretName, now: now), viewer: viewer, names: [:]))
    }

    /// This naming with the display names of `users` read from `store` (one query), for the
    /// lines about to name them.
    func knowing(_ users: some Collection<String>, in store: any StoreReader) throws -> ParticipantNaming {
        guard case .handles(let key, let viewer, var names) = form else { return self }
        let missing = users.filter { names[$0] == nil }
        guard !missing.isEmpty else { return self }
        for (user, name) in try store.displayNames(of: missing) { names[user] = name }
        return ParticipantNaming(form: .handles(key: key, viewer: viewer, names: names))
    }

    /// User ids, as the command line shows them.
    public static let userIDs = ParticipantNaming(form: .userIDs)

    /// The members that name `user` in a line of `challenge`.
    func fields(challenge: String, user: String) -> JSONObject {
        switch form {
        case .userIDs:
            return ["user_id": .string(user)]
        case .handles(let key, let viewer, let names):
            return [
                "participant": .string(Self.handle(key: key, challenge: challenge, user: user)),
                "display_name": names[user].map(JSON.string) ?? .null, "is_you": .bool(user == viewer),
            ]
        }
    }

    /// Ten characters of Crockford's base 32 (no i, l, o, u).
    static func handle(key: [UInt8], challenge: String, user: String) -> String {
        let mac = HMACSHA256.mac(key: key, message: Array("challenge-participant\u{0}\(challenge)\u{0}\(user)".utf8))
        var bits = mac.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var text = ""
        for _ in 0..<10 {
            text.append(alphabet[Int(bits >> 59)])
            bits <<= 5
        }
        return text
    }
}

extension JSONObject {
    /// These members with `other`'s after them.
    func adding(_ other: JSONObject) -> JSONObject {
        var result = self
        for (key, value) in other { result[key] = value }
        return result
    }
}
