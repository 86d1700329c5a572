import Foundation
import Testing

/// The layers table of `docs/architecture.md` is true: it places every module of `Package.swift`
/// (every target but the test targets) in exactly one row, names no module that does not exist,
/// and each module depends only on modules of its row or of the rows above it.
@Suite struct LayerDocumentTests {
    static let document = "docs/architecture.md"

    /// A row of the table: its line, its layer, its modules.
    struct Row {
        var line: Int
        var layer: String
        var modules: [String]
    }

    /// The rows of the table whose header is `| layer | modules | …`, in order.
    static func rows(of text: String) -> [Row] {
        var rows: [Row] = []
        var inTable = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 2, cells[0] == "layer", cells[1] == "modules" {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            if cells[0].allSatisfy({ $0 == "-" || $0 == ":" }) { continue }
            let modules = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            rows.append(Row(line: index + 1, layer: cells[0], modules: modules))
        }
        return rows
    }

    @Test func theLayersTablePlacesEveryModuleAndEachDependsOnlyUpward() throws {
        let graph = try ArchitectureTests.graph.get()
        let text = try String(contentsOfFile: PackageGraph.root + "/" + Self.document, encoding: .utf8)
        let rows = Self.rows(of: text)
        #expect(rows.count >= 5, "\(Self.document): no layers table (`| layer | modules | … |`)")

        var rowOf: [String: Int] = [:]
        for (position, row) in rows.enumerated() {
            for module in row.modules {
                if graph.targets[module] == nil {
                    Issue.record("\(Self.document):\(row.line): `\(module)` is not a target of Package.swift")
                }
                if let earlier = rowOf[module] {
                    Issue.record(
                        "\(Self.document):\(row.line): `\(module)` is placed twice (also in \(rows[earlier].layer))")
                }
                rowOf[module] = position
            }
        }
        let modules = graph.targets.values.filter { $0.kind != "testTarget" }.map(\.name)
        for module in modules.sorted() where rowOf[module] == nil {
            Issue.record("\(Self.document): the layers table does not place `\(module)` (a target of Package.swift)")
        }
        for module in modules.sorted() {
            guard let position = rowOf[module], let target = graph.targets[module] else { continue }
            for dependency in target.declared.sorted() {
                guard let below = rowOf[dependency], below > position else { continue }
                Issue.record(
                    """
                    \(Self.document):\(rows[position].line): `\(module)` (\(rows[position].layer)) depends on \
                    `\(dependency)`, a row below it (\(rows[below].layer))
                    """)
            }
        }
    }

    @Test func rowsAreReadFromTheTable() {
        let rows = Self.rows(
            of: """
                text
                | layer | modules | what |
                |---|---|---|
                | core | `Core` | JSON |
                | wrappers | `JQ`, `YAML` | libraries |

                | other | `X` |
                """)
        #expect(rows.map(\.layer) == ["core", "wrappers"])
        #expect(rows.map(\.modules) == [["Core"], ["JQ", "YAML"]])
        #expect(rows.map(\.line) == [4, 5])
    }
}
