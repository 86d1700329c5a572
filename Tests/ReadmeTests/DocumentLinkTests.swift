import Foundation
import Testing

/// The documents' relative links lead somewhere: every `[text](path)` and `[text](path#anchor)`
/// of README.md and of every other Markdown file names a file or folder of the repository, and an
/// anchor names a heading of its Markdown file.
@Suite struct DocumentLinkTests {
    @Test func everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws {
        var anchors: [String: Set<String>] = [:]
        func anchorsOf(_ file: String) throws -> Set<String> {
            if let known = anchors[file] { return known }
            let found = DocumentLinks.anchors(in: try MarkdownDocument.load(file).prose)
            anchors[file] = found
            return found
        }
        var checked = 0
        for file in try RepositoryPaths.markdownFiles() {
            guard let document = try? MarkdownDocument.load(file) else { continue }  // reported elsewhere
            let folder = (file as NSString).deletingLastPathComponent
            for link in DocumentLinks.relativeLinks(in: document.prose) {
                checked += 1
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                let anchor = parts.count > 1 ? String(parts[1]) : nil
                let target = path.isEmpty ? file : Self.normalized(folder.isEmpty ? path : folder + "/" + path)
                let location = SourceLocation(
                    fileID: "ReadmeTests/\(file)", filePath: RepositoryPaths.root + "/" + file, line: link.line,
                    column: 1)
                guard FileManager.default.fileExists(atPath: RepositoryPaths.root + "/" + target) else {
                    Issue.record(
                        "\(file):\(link.line): `\(link.target)` leads to \(target), which does not exist",
                        sourceLocation: location)
                    continue
                }
                if let anchor, target.hasSuffix(".md"), !(try anchorsOf(target)).contains(anchor) {
                    Issue.record(
                        "\(file):\(link.line): `\(link.target)`: \(target) has no heading whose anchor is #\(anchor)",
                        sourceLocation: location)
                }
            }
        }
        #expect(checked >= 20, "only \(checked) relative links found")
    }

    /// A relative path with `.` and `..` resolved (`docs/../README.md` is `README.md`); a path
    /// that leaves the repository keeps its leading `..`.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.joined(separator: "/")
    }

    @Test func linksAndAnchorsAreReadAsGitHubRendersThem() throws {
        let document = try MarkdownDocument(
            parsing: """
                # The HTTP service
                See [rules](docs/rules.md#rule-files), [`journey serve`](#the-http-service) and \
                [the site](https://example.com); not `[code](nowhere.md)`.
                ## Limits per user
                ## Limits per user
                ### `journey ingest`: order of arrival
                ```sh
                [not a link](inside-a-fence.md)
                # not a heading
                ```
                [ref]: docs/http.md
                """)
        #expect(
            DocumentLinks.relativeLinks(in: document.prose).map(\.target) == [
                "docs/rules.md#rule-files", "#the-http-service", "docs/http.md",
            ])
        #expect(Self.normalized("docs/../README.md") == "README.md")
        #expect(Self.normalized("docs/./features/../rules.md") == "docs/rules.md")
        #expect(Self.normalized("docs/../../x.md") == "../x.md")
        #expect(
            DocumentLinks.anchors(in: document.prose) == [
                "the-http-service", "limits-per-user", "limits-per-user-1", "journey-ingest-order-of-arrival",
            ])
    }
}
