/// The little DER (ITU-T X.690) the keys and signatures need: a public key from a JWK's
/// numbers, and an ECDSA signature from JOSE's raw `r || s`.
enum DER {
    /// The object identifiers used.
    static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]
    static let prime256v1: [UInt8] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]
    static let null: [UInt8] = [0x05, 0x00]

    /// A tag, its length and contents.
    static func element(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        [tag] + length(contents.count) + contents
    }

    static func sequence(_ parts: [UInt8]...) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }

    /// An unsigned big-endian number as an INTEGER: leading zeros dropped, one zero byte put
    /// back when the top bit would make it negative.
    static func unsignedInteger(_ bytes: [UInt8]) -> [UInt8] {
        var digits = Array(bytes.drop { $0 == 0 })
        if digits.isEmpty { digits = [0] }
        if digits[0] & 0x80 != 0 { digits.insert(0, at: 0) }
        return element(0x02, digits)
    }

    static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(0x03, [0] + bytes) }

    /// SubjectPublicKeyInfo of an RSA key (modulus, exponent).
    static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        sequence(
            sequence(rsaEncryption, null),
            bitString(sequence(unsignedInteger(modulus), unsignedInteger(exponent))))
    }

    /// SubjectPublicKeyInfo of a P-256 key (the point's coordinates, 32 bytes each).
    static func p256PublicKey(x: [UInt8], y: [UInt8]) -> [UInt8] {
        sequence(sequence(ecPublicKey, prime256v1), bitString([0x04] + x + y))
    }

    /// ECDSA-Sig-Value of JOSE's `r || s` (RFC 7518 §3.4).
    static func ecdsaSignature(raw: [UInt8]) -> [UInt8] {
        let half = raw.count / 2
        return sequence(unsignedInteger(Array(raw[..<half])), unsignedInteger(Array(raw[half...])))
    }

    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xff), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
