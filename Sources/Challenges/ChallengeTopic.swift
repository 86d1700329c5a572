import Core

/// CH-12: each challenge's FCM topic. The engine sends no push itself: the app subscribes to a
/// challenge's topic with the FCM SDK when it joins (there is no leaving: it unsubscribes once
/// the challenge has ended), and a push sender sends a message meant for every participant —
/// the community digest — once to the topic instead of once per participant. Notices for one
/// user or one side (celebrations, a head-to-head's progress and overtaking) stay per user.
public enum ChallengeTopic {
    /// FCM's topic alphabet, `[a-zA-Z0-9-_.~%]`, but `%`, which starts an escape here.
    static let kept = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~".utf8)

    /// `challenge-` and the challenge's id, every byte outside FCM's alphabet percent-encoded
    /// (so two ids never share a topic): `weekly-training@2026-12-07` →
    /// `challenge-weekly-training%402026-12-07`.
    public static func name(of challengeID: String) -> String {
        var name = "challenge-"
        for byte in challengeID.utf8 {
            if kept.contains(byte) {
                name.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return name
    }

    /// What the app does with the topic: `{topic, subscribe: "at_join", unsubscribe: "after_end"}`.
    public static func subscription(of challengeID: String) -> JSON {
        ["topic": .string(name(of: challengeID)), "subscribe": "at_join", "unsubscribe": "after_end"]
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
