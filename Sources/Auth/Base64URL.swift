/// base64url without padding (RFC 4648 §5), as JSON Web Tokens and key sets write bytes.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// The bytes `text` encodes; nil for any character outside the alphabet (padding
    /// included), an impossible length, or unused bits that are not zero (one encoding per
    /// value, so a token cannot be altered without changing its signature input).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xff else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        guard buffer == 0 else { return nil }
        return output
    }

    /// `bytes` in base64url, without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let group = UInt32(bytes[index]) << 16
            for shift in [18, 12] { output.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
        } else if rest == 2 {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            for shift in [18, 12, 6] { output.append(alphabet[Int(group >> UInt32(shift) & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
