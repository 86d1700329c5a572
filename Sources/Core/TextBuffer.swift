/// Growable UTF-8 bytes that JSON text is written into: an append is a capacity check and a
/// copy, without the uniqueness checks and generic paths of appending to an `[UInt8]` (most of
/// the cost of serializing small values such as rule outputs).
struct TextBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 128) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends the UTF-8 bytes of `text`.
    mutating func append(utf8Of text: String) {
        Self.withUTF8(of: text) { append($0) }
    }

    /// Calls `body` with the UTF-8 bytes of `text`, read in place when its storage allows (a
    /// native string), else from a copy.
    static func withUTF8<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var text = text
        return text.withUTF8(body)
    }

    /// Appends the bytes of a literal such as `"null"`.
    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends `byte` `times` times.
    mutating func append(_ byte: UInt8, times: Int) {
        guard times > 0 else { return }
        if capacity - count < times { grow(toHold: times) }
        (base + count).initialize(repeating: byte, count: times)
        count += times
    }

    /// Reverses the bytes from `start` to the end (digits written least significant first).
    mutating func reverse(from start: Int) {
        var digits = UnsafeMutableBufferPointer(start: base + start, count: count - start)
        digits.reverse()
    }

    /// The bytes written so far, borrowed for the call.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The text written, as a `String`.
    var string: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    private mutating func grow(toHold extra: Int) {
        let grown = max(capacity * 2, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.moveInitialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }
}
