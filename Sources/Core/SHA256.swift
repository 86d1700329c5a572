import COpenSSL

/// SHA-256 (FIPS 180-4), for the rule set's revision and the credentials' digests: libcrypto's
/// (OpenSSL, Debian's `libssl-dev`), behind the same small API as before.
///
/// A value: a copy hashes on from where the original was (the digest state is copied the first
/// time either one is updated after the copy).
public struct SHA256 {
    private var state: DigestState

    public init() {
        state = DigestState()
    }

    /// Adds bytes to the hash.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        let handled: Void? = bytes.withContiguousStorageIfAvailable { state.update($0) }
        if handled == nil { Array(bytes).withUnsafeBufferPointer { state.update($0) } }
    }

    /// Adds the UTF-8 of `text`.
    public mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { bytes in update(bytes) }
    }

    /// The 32 bytes of the digest. The hash is finished: update it no more.
    public mutating func finalize() -> [UInt8] {
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        return state.finish()
    }

    /// The digest as 64 lowercase hex digits.
    public mutating func finalizeHex() -> String {
        Self.hex(bytes: finalize())
    }

    /// The hex digest of `text`.
    public static func hex(_ text: String) -> String {
        var hasher = SHA256()
        hasher.update(text)
        return hasher.finalizeHex()
    }

    /// The digest of `bytes`.
    public static func digest<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Lowercase hex of `bytes`.
    public static func hex(bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// An `EVP_MD_CTX` set up for SHA-256, freed with its owner.
private final class DigestState {
    let context: OpaquePointer

    init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto cannot set up SHA-256")
        }
        self.context = context
    }

    private init(copying other: DigestState) {
        guard let context = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(context, other.context) == 1 else {
            fatalError("libcrypto cannot copy a SHA-256 state")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    func copy() -> DigestState { DigestState(copying: self) }

    func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }
}

/// Whether `a` and `b` hold the same bytes, in time that depends only on their lengths
/// (libcrypto's `CRYPTO_memcmp`): for digests of secrets.
public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
    }
}
