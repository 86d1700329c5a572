import Core
import FeatureKit
import HTTP
import RuleEngine

/// The admin endpoints' guard: `Authorization: Bearer <token>`, compared in constant time.
/// Without a configured token the admin endpoints are off.
enum AdminAuth {
    /// Nil when `request` may use the admin endpoints; else the refusal.
    static func refusal(_ request: HTTPRequest, credentials: AdminCredentials?) -> APIError? {
        if case .failure(let refusal) = authenticate(request, credentials: credentials) { return refusal }
        return nil
    }

    /// The name of the credential `request` carries; else the refusal.
    static func authenticate(_ request: HTTPRequest, credentials: AdminCredentials?) -> Result<String, APIError> {
        guard let credentials else {
            return .failure(
                APIError(
                    403, "admin_disabled",
                    "the admin endpoints are off: start the service with JOURNEY_ADMIN_TOKEN or --admin-token-file"))
        }
        let challenge = [(name: "WWW-Authenticate", value: "Bearer realm=\"journey-admin\"")]
        guard let header = request.header("Authorization") else {
            return .failure(
                APIError(401, "unauthorized", "send Authorization: Bearer <admin token>", headers: challenge))
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
            let name = credentials.name(of: String(parts[1]).trimmingSpaces)
        else {
            return .failure(APIError(401, "unauthorized", "the admin token is not valid", headers: challenge))
        }
        return .success(name)
    }

    /// Compares the SHA-256 digests of both, so neither the token's length nor the position of
    /// the first difference shows in the time taken.
    static func constantTimeEqual(_ given: String, _ expected: String) -> Bool {
        let a = Array(SHA256.hex(given).utf8)
        let b = Array(SHA256.hex(expected).utf8)
        var difference: UInt8 = 0
        for index in 0..<min(a.count, b.count) { difference |= a[index] ^ b[index] }
        return difference == 0 && a.count == b.count
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
