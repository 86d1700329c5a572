import Core
import HTTP
import JQ
import TestSupport
import Testing

/// Cases/routes.yaml: every route, status and error shape, through the router.
@Suite(.serialized) struct RouteCaseTests {
    static let shared = SharedService()
    @Test(
        arguments: try CaseFile("routes.yaml").cases(
            keys: CaseKeys(
                expecting: ["expect"],
                parts: [
                    "request": CaseKeys(others: ["method", "path", "json", "raw", "headers", "admin"]),
                    "expect": CaseKeys(
                        expecting: ["status"], others: ["code", "headers", "has", "body", "contains", "lacks"]),
                ])))
    func route(_ testCase: NamedCase) throws {
        let request = testCase.json["request"] ?? .null
        let expect = testCase.json["expect"] ?? .null
        try Self.shared.use { harness in
            var headers: [String: String] = [:]
            for (name, value) in request["headers"]?.objectValue ?? [:] { headers[name] = value.stringValue }
            let response = harness.send(
                request["method"]?.stringValue ?? "GET", request["path"]?.stringValue ?? "/", json: request["json"],
                body: request["raw"]?.stringValue.map { Array($0.utf8) }, headers: headers,
                admin: request["admin"] == true)
            let place = "\(testCase.testDescription): \(response.status) \(response.text.prefix(600))"
            #expect(response.status == Int(expect["status"]?.numberValue ?? 0), "\(place)")
            let body = response.json
            if response.status >= 400 {
                // Every error has the same shape.
                #expect(body["code"]?.stringValue != nil && body["message"]?.stringValue != nil, "\(place)")
                #expect(body["errors"]?.arrayValue != nil, "\(place)")
            }
            if let code = expect["code"]?.stringValue { #expect(body["code"]?.stringValue == code, "\(place)") }
            for (name, value) in expect["headers"]?.objectValue ?? [:] {
                #expect(response.header(name) == value.stringValue, "\(place): header \(name)")
            }
            for key in expect["has"]?.arrayValue ?? [] {
                #expect(body[key.stringValue ?? ""] != nil, "\(place): has \(key)")
            }
            if let subset = expect["body"] {
                #expect(Self.contains(body, subset), "\(place): body ⊇ \(subset.compactText)")
            }
            for text in expect["contains"]?.arrayValue ?? [] {
                #expect(response.text.contains(text.stringValue ?? "\u{0}"), "\(place): contains \(text)")
            }
            for text in expect["lacks"]?.arrayValue ?? [] {
                #expect(!response.text.contains(text.stringValue ?? ""), "\(place): lacks \(text)")
            }
        }
    }

    /// Whether `value` holds `subset`: objects by their keys, arrays element by element.
    static func contains(_ value: JSON, _ subset: JSON) -> Bool {
        switch (value, subset) {
        case (.object(let object), .object(let expected)):
            return expected.keys.allSatisfy { key in object[key].map { contains($0, expected[key]!) } ?? false }
        case (.array(let items), .array(let expected)):
            return items.count >= expected.count && zip(items, expected).allSatisfy { contains($0, $1) }
        default:
            return value == subset
        }
    }
}
