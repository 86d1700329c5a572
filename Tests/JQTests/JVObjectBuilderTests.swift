import Core
import Testing

@testable import JQ

/// A rule's input built straight from rows must be the value the ``JSON`` path builds: the
/// stored text parsed by libjq, or by ``JSONParser`` where libjq refuses it.
@Suite struct JVObjectBuilderTests {
    @Test(arguments: JSONBridgeTests.roundTrips)
    func storedTextIsTheSameValue(_ name: String, _ value: JSON) throws {
        var builder = JVObjectBuilder()
        try builder.set(JV(string: "payload"), storedText: value.compactText)
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
        var builder = JVObjectBuilder()
        try builder.set(JV(string: "payload"), storedText: value.compactText)
        try builder.set(JV(string: "deep"), storedText: deep.compactText)
        var string = "Ü 🐕 \(name)"
        string.withUTF8 { builder.set(JV(string: "s"), utf8: $0) }
        builder.set(JV(string: "none"), utf8: nil)
        builder.set(JV(string: "empty"), utf8: UnsafeBufferPointer(start: nil, count: 0))
        try builder.set(JV(string: "null"), storedJSON: nil)
        let expected: JSON = [
            "payload": value, "deep": deep, "s": .string(string), "none": .null, "empty": "", "null": .null,
        ]
        #expect(try builder.build().json() == expected)
    }

    @Test func textNestedDeeperThanLibjqParsesIsReadAllTheSame() throws {
        var value: JSON = "leaf"
        for _ in 0..<300 { value = ["k": value] }  // libjq's parser stops at 256 levels
        var builder = JVObjectBuilder()
        try builder.set(JV(string: "payload"), storedText: value.compactText)
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

    /// Arrays built element by element, nested in arrays and objects, in order; an empty one
    /// stays an array.
    @Test func arraysOfEveryKind() throws {
        var inner = JVArrayBuilder()
        inner.append(string: "2026-01-05")
        inner.append(number: 3)
        var object = JVObjectBuilder()
        object.set(JV(string: "k"), number: 1)
        object.set(JV(string: "empty"), array: JVArrayBuilder())
        var array = JVArrayBuilder()
        array.append(array: inner)
        array.append(object: object)
        array.append(JV(true))
        array.append(string: "Ü")
        var outer = JVObjectBuilder()
        outer.set(JV(string: "runs"), array: array)
        #expect(
            try outer.build().json().compactText == #"{"runs":[["2026-01-05",3],{"k":1,"empty":[]},true,"Ü"]}"#)
        #expect(try JVArrayBuilder().build().json() == .array([]))
    }

    @Test func storedTextThatIsNotJSONIsAnError() {
        var builder = JVObjectBuilder()
        #expect(throws: (any Error).self) { try builder.set(JV(string: "p"), storedText: "{\"a\":") }
    }
}

extension JVObjectBuilder {
    /// Stored JSON given as text, set through its UTF-8 bytes as a row's column gives them.
    mutating func set(_ key: JV, storedText text: String) throws {
        var text = text
        try text.withUTF8 { try set(key, storedJSON: $0) }
    }
}
