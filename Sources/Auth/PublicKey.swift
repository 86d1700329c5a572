import COpenSSL

/// A public key tokens are signed for: RSA (RS256, at least 2048 bits) or EC P-256 (ES256),
/// held by libcrypto.
///
/// `@unchecked Sendable`: the key is never changed after it is read, and libcrypto allows
/// concurrent verifications with one key.
public final class PublicKey: @unchecked Sendable {
    /// The kinds of key, each with its one algorithm.
    public enum Kind: String, Sendable {
        /// RSA, at least 2048 bits: RS256.
        case rsa = "RS256"
        /// EC on P-256: ES256.
        case p256 = "ES256"

        /// The JWS `alg` this key verifies.
        public var algorithm: String { rawValue }
    }

    /// RSA or P-256.
    public let kind: Kind
    private let key: OpaquePointer

    /// The key in a PEM text (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo).
    public convenience init(pem: String) throws(KeyError) {
        var bytes = Array(pem.utf8)
        let read: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let read else {
            throw KeyError(
                pem.contains("PRIVATE KEY")
                    ? "it holds a private key; give the public key (openssl pkey -pubout)"
                    : "it is not a PEM public key (-----BEGIN PUBLIC KEY-----)")
        }
        try self.init(adopting: read)
    }

    /// The key in DER SubjectPublicKeyInfo.
    convenience init(der: [UInt8]) throws(KeyError) {
        let read: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        ERR_clear_error()
        guard let read else { throw KeyError("libcrypto does not accept the key's numbers") }
        try self.init(adopting: read)
    }

    private init(adopting key: OpaquePointer) throws(KeyError) {
        self.key = key
        let bits = EVP_PKEY_get_bits(key)
        switch EVP_PKEY_get_base_id(key) {
        case journey_evp_pkey_rsa:
            guard bits >= 2048 else {
                EVP_PKEY_free(key)
                throw KeyError("the RSA key has \(bits) bits; RS256 needs at least 2048")
            }
            kind = .rsa
        case journey_evp_pkey_ec:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            let found = EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1
            let group = found ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            guard group == "prime256v1" || group == "P-256" else {
                EVP_PKEY_free(key)
                throw KeyError("the EC key is on curve \(group); ES256 needs P-256 (prime256v1)")
            }
            kind = .p256
        default:
            EVP_PKEY_free(key)
            throw KeyError("the key is neither RSA nor EC P-256")
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` (PKCS #1 v1.5 for RSA; DER ECDSA-Sig-Value for P-256) signs the
    /// SHA-256 of `message` with this key.
    func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { message in
                EVP_DigestVerify(context, signature.baseAddress, signature.count, message.baseAddress, message.count)
                    == 1
            }
        }
    }
}

/// Why a key (a PEM file, a JWKS entry, a secret) cannot be used, in words.
public struct KeyError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, as a clause after the file's name (`there is no such file`).
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
