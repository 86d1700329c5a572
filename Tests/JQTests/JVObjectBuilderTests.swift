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
