import COpenSSL

/// HMAC-SHA256 (RFC 2104), libcrypto's: HS256 signatures.
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { message in
                _ = HMAC(
                    EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &output,
                    &length)
            }
        }
        return output
    }
}
