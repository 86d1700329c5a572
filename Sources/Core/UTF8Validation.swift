/// Strict UTF-8 validation (no overlong forms, no surrogates, nothing above U+10FFFF).
///
/// libjq silently replaces bad bytes with U+FFFD; inputs are checked first so that a client
/// sending broken text hears about it instead of getting rules evaluated on altered data.
public enum UTF8Validation {
    /// The offset of the first byte that is not part of valid UTF-8, or nil when all is valid.
    public static func firstInvalidOffset(in bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        var i = 0
        while i < count {
            // Fast path: eight ASCII bytes at a time.
            if i + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return i
            }
            guard i + length <= count else { return i }
            let second = bytes[i + 1]
            guard second >= lower, second <= upper else { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 {
                return i
            }
            i += length
        }
        return nil
    }

    /// 1-based line and column (in bytes) of `offset` in `bytes`.
    public static func lineAndColumn(of offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return (line, offset - lineStart + 1)
    }
}
