/// Secrets the service keeps in its store (one row each of `service_secrets`), so that every
/// worker and every instance on the store uses the same: made on first use, never changed.
extension Store {
    /// The secret `name`: 32 random bytes, made and kept the first time any process asks (when
    /// two ask at once, both get the one kept first).
    public func serviceSecret(_ name: String, now: Double) throws -> [UInt8] {
        if let kept = try keptSecret(name) { return kept }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try run(
            "INSERT INTO service_secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
            [.text(name), .text(Self.hex(bytes)), .real(now)])
        return try keptSecret(name) ?? bytes
    }

    private func keptSecret(_ name: String) throws -> [UInt8]? {
        try first("SELECT value FROM service_secrets WHERE name = ?", [.text(name)]) { row in
            row.text(0).flatMap(Self.bytes(hex:))
        } ?? nil
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
