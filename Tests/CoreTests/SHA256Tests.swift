import Core
import Testing

/// SHA-256 through libcrypto: the FIPS 180-4 examples, the same digest however the bytes are
/// split, and a copy that hashes on independently.
@Suite struct SHA256Tests {
    static let vectors: [(String, String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ("é🐕", "381ac352a1f3b1b4cb5dab562bf9d2e4e48c99daa0c65fbdbd7724a4362d00bb"),
        // Lengths around the 64-byte block and its padding (sha256sum).
        (String(repeating: "q", count: 55), "85528b5baff5639cb8e7daca79d085ac29ac0978e873ed7527158616b2b6c379"),
        (String(repeating: "q", count: 56), "f8ce2f8d6990c639668fe404262f35ed72d8bb145ad6bae786af7284447386df"),
        (String(repeating: "q", count: 63), "9b49777003a4143d8c3f4d3002eb631c6bda8b030a3ccc87f8a21d5f61c89e87"),
        (String(repeating: "q", count: 64), "ee8e658590c9a5e119400a774415a01db104de1ee6e2c29ec69aa73ef46544d2"),
        (String(repeating: "q", count: 119), "c8bc8a6e9626586bb888ad131d44ed2bd37fc608e902904ade3c566c4208e6ca"),
    ]

    @Test(arguments: vectors)
    func knownDigests(text: String, hex: String) {
        #expect(SHA256.hex(text) == hex)
        #expect(SHA256.hex(bytes: SHA256.digest(Array(text.utf8))) == hex)
    }

    @Test(arguments: [1, 3, 63, 64, 65, 1000])
    func splittingTheInputChangesNothing(chunk: Int) {
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        var index = 0
        while index < bytes.count {
            hasher.update(bytes[index..<min(index + chunk, bytes.count)])
            index += chunk
        }
        #expect(hasher.finalizeHex() == SHA256.hex(bytes: SHA256.digest(bytes)))
    }

    @Test func aCopyHashesOnByItself() {
        var first = SHA256()
        first.update("ab")
        var second = first
        second.update("c")
        first.update("x")
        #expect(second.finalizeHex() == SHA256.hex("abc"))
        #expect(first.finalizeHex() == SHA256.hex("abx"))
    }

    @Test func constantTimeComparison() {
        #expect(constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(constantTimeEqual([], []))
    }
}
