import Core
import Foundation
import TestSupport
import Testing

/// docs/app-contract.md's table of screens says which route draws each screen of the product
/// documents and which fields it uses: each route named is served and documented, each field is
/// in the route's answer (`shows`) or body (`sends`) in `/openapi.json`, and every route the app
/// calls (an operation without its own `security`: under the user's token) is in the table.
@Suite struct ScreenContractTests {
    static let shared = SharedService()

    struct Row: CustomTestStringConvertible, Sendable {
        var line: Int
        var document: String
        var screen: String
        var method: String
        var path: String
        var sends: [String]
        var shows: [String]
        var testDescription: String { "app-contract.md:\(line) \(screen)" }
    }

    /// The rows of the table under `## Screens`.
    static func rows() throws -> [Row] {
        let text = try String(contentsOfFile: Repository.root + "/docs/app-contract.md", encoding: .utf8)
        var rows: [Row] = []
        var inScreens = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("## ") { inScreens = line == "## Screens" }
            guard inScreens, line.hasPrefix("| "), !line.hasPrefix("| document"), !line.hasPrefix("|---") else {
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5 else {
                throw ContractError("app-contract.md:\(index + 1): \(cells.count) cells, not 5")
            }
            let route = names(cells[2])
            let parts = route.first?.split(separator: " ").map(String.init) ?? []
            guard route.count == 1, parts.count == 2 else {
                throw ContractError("app-contract.md:\(index + 1): the route is one `METHOD /path`")
            }
            rows.append(
                Row(
                    line: index + 1, document: cells[0], screen: cells[1], method: parts[0], path: parts[1],
                    sends: names(cells[3]), shows: names(cells[4])))
        }
        return rows
    }

    /// The `code` spans of a cell.
    static func names(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    struct ContractError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let document: JSON = (try? shared.use { $0.send("GET", "/openapi.json").json }) ?? .null

    static func resolve(_ schema: JSON) -> JSON {
        var schema = schema
        var hops = 0
        while let reference = schema["$ref"]?.stringValue, hops < 32 {
            let name = String(reference.split(separator: "/").last ?? "")
            schema = document["components"]?["schemas"]?[name] ?? .null
            hops += 1
        }
        return schema
    }

    /// The schemas of member `name` of `schema` (through `$ref`, `allOf`, `oneOf`, `anyOf`).
    static func member(_ name: String, of schema: JSON) -> [JSON] {
        let schema = resolve(schema)
        var found: [JSON] = schema["properties"]?[name].map { [$0] } ?? []
        for key in ["allOf", "oneOf", "anyOf"] {
            for inner in schema[key]?.arrayValue ?? [] { found += member(name, of: inner) }
        }
        return found
    }

    /// Whether the dotted `field` (`recommended.why`, `branches[].fraction`) is in `schema`.
    static func has(_ field: String, in schema: JSON) -> Bool {
        var schemas = [schema]
        for part in field.split(separator: ".") {
            let isList = part.hasSuffix("[]")
            let name = String(isList ? part.dropLast(2) : part)
            schemas = schemas.flatMap { member(name, of: $0) }
            if isList { schemas = schemas.compactMap { resolve($0)["items"] } }
            if schemas.isEmpty { return false }
        }
        return true
    }

    static func operation(_ row: Row) -> JSON? {
        document["paths"]?[row.path]?[row.method.lowercased()]
    }

    @Test(arguments: try rows())
    func theRowsRouteAndFieldsAreInTheDocument(_ row: Row) throws {
        let operation = try #require(Self.operation(row), "\(row.method) \(row.path) is not a documented route")
        #expect(operation["security"] == nil, "\(row.method) \(row.path) is not one the app calls")
        let responses = operation["responses"]
        let answer = try #require(
            (responses?["200"] ?? responses?["201"])?["content"]?["application/json"]?["schema"],
            "\(row.path): no JSON answer")
        for field in row.shows {
            #expect(Self.has(field, in: answer), "\(row.method) \(row.path) does not answer `\(field)`")
        }
        let body = operation["requestBody"]?["content"]?["application/json"]?["schema"] ?? .null
        for field in row.sends {
            #expect(Self.has(field, in: body), "\(row.method) \(row.path) does not take `\(field)`")
        }
    }

    @Test func everyRouteTheAppCallsIsInTheTable() throws {
        let listed = Set(try Self.rows().map { "\($0.method) \($0.path)" })
        var appRoutes: Set<String> = []
        for (path, item) in Self.document["paths"]?.objectValue ?? [:] {
            for (method, operation) in item.objectValue ?? [:] where operation["security"] == nil {
                if operation["responses"] != nil { appRoutes.insert("\(method.uppercased()) \(path)") }
            }
        }
        #expect(appRoutes.count > 25, "the app's routes were found")
        #expect(appRoutes.subtracting(listed).sorted() == [], "routes the app calls missing from app-contract.md")
    }

    /// The checks refuse what they should: a field no answer has, a list read as an object.
    @Test(arguments: [
        ("recommended.why", true), ("recommended.nope", false), ("branches[].fraction", true),
        ("branches.fraction", false), ("dog.name", true),
    ])
    func aFieldIsFoundOnlyWhereItIs(field: String, found: Bool) throws {
        let today = try #require(
            Self.document["paths"]?["/v1/dogs/{dog_id}/today"]?["get"]?["responses"]?["200"]?["content"]?[
                "application/json"]?["schema"])
        #expect(Self.has(field, in: today) == found)
    }
}
