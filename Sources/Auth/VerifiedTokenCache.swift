import Synchronization

/// Tokens already verified, so that a client's next requests with the same token skip the
/// signature check (RS256 and ES256 cost tens of microseconds each). An entry serves only while
/// its token would still be accepted: until `exp` plus the leeway (`nbf` has passed already, and
/// the keys never change while the service runs).
public final class VerifiedTokenCache: Sendable {
    /// Most tokens kept; when full, the cache starts over.
    public static let capacity = 1024
    /// Longer tokens are verified every time.
    public static let longestToken = 4096

    private let entries = Mutex<[String: VerifiedToken]>([:])

    public init() {}

    /// `verifier.verify(token, now:)`, answered from the cache when the token was verified before.
    public func verify(_ token: String, now: Double, with verifier: TokenVerifier) -> Result<
        VerifiedToken, TokenRefusal
    > {
        if let known = entries.withLock({ $0[token] }), now <= known.expiresAt + verifier.leeway {
            return .success(known)
        }
        let result = verifier.verify(token, now: now)
        if case .success(let verified) = result, token.utf8.count <= Self.longestToken {
            entries.withLock { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[token] = verified
            }
        }
        return result
    }

    /// How many tokens are kept.
    public var count: Int { entries.withLock { $0.count } }
}
