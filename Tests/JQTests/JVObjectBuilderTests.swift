import Core
import Testing

@testable import JQ

/// A rule's input built straight from rows must be the value the ``JSON`` path builds: the
/// stored text parsed by libjq, or by ``JSONParser`` where libjq refuses it.
@Suite struct JVObjectBuilderTests {
    @Test(arguments: JSONBridgeTests.roundTrips)
    func storedTextIsTheSameValue(_ name: String, _ value: JSON) throws {
        var builder = JVObjectBuilder()
        try builder.set(JV(string: "payload"), storedJSON: value.compactText)
        let built = try builder.build().json()
        #expect(built == ["payload": value])
        #expect(built.compactText == JSON.object(["payload": value]).compactText, "key order kept")
    }

    /// Bytes straight from a row give the value their text gives: a string, null for a NULL
    /// column, "" for an empty one, stored JSON parsed (deep text by ``JSONParser``).
    @Test(arguments: JSONBridgeTests.roundTrips)
    func bytesAreTheSameValueAsText(_ name: String, _ value: JSON) throws {
        var deep: JSON = value
        for _ in 0..<300 { deep = ["k": deep] }
        var fromBytes = JVObjectBuilder()
        var fromText = JVObjectBuilder()
        for (key, text) in [("payload", value.compactText), ("deep", deep.compactText)] {
            var copy = text
            try copy.withUTF8 { try fromBytes.set(JV(string: key), storedJSONUTF8: $0) }
            try fromText.set(JV(string: key), storedJSON: text)
        }
        let string = "Ü 🐕 \(name)"
        var copy = string
        copy.withUTF8 { fromBytes.set(JV(string: "s"), utf8: $0) }
        fromBytes.set(JV(string: "none"), utf8: nil)
        fromBytes.set(JV(string: "empty"), utf8: UnsafeBufferPointer(start: nil, count: 0))
        try fromBytes.set(JV(string: "null"), storedJSONUTF8: nil)
        fromText.set(JV(string: "s"), string: string)
        fromText.set(JV(string: "none"), string: nil)
        fromText.set(JV(string: "empty"), string: "")
        try fromText.set(JV(string: "null"), storedJSON: nil)
        let built = try fromBytes.build().json()
        #expect(built == (try fromText.build().json()))
        #expect(built["deep"] == deep && built["empty"] == "" && built["none"] == .null)
    }

    @Test func textNestedDeeperThanLibjqParsesIsReadAllTheSame() throws {
        var value: JSON = "leaf"
        for _ in 0..<300 { value = ["k": value] }  // libjq's parser stops at 256 levels
        var builder = JVObjectBuilder()
        try builder.set(JV(string: "payload"), storedJSON: value.compactText)
        #expect(try builder.build().json() == ["payload": value])
    }

    @Test func membersOfEveryKind() throws {
        let key = JV(string: "shared")
        var builder = JVObjectBuilder()
        builder.set(JV(string: "s"), string: "Ü 🐕")
        builder.set(JV(string: "none"), string: nil)
        builder.set(JV(string: "n"), number: -2.5)
        try builder.set(JV(string: "null text"), storedJSON: nil)
        builder.set(key, JV(array: [JV(string: "a"), JV(["b": 1])]))
        #expect(
            try builder.build().json().compactText
                == #"{"s":"Ü 🐕","none":null,"n":-2.5,"null text":null,"shared":["a",{"b":1}]}"#)
    }

    @Test func storedTextThatIsNotJSONIsAnError() {
        var builder = JVObjectBuilder()
        #expect(throws: (any Error).self) { try builder.set(JV(string: "p"), storedJSON: "{\"a\":") }
    }
}
