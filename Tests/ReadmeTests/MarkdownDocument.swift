import Foundation

/// One line of a Markdown file, with its 1-based line number.
struct DocumentLine: Sendable, Equatable {
    /// The line number in its file, counting from 1.
    var number: Int
    /// The line's text, without its line break (and without the indentation of its fence).
    var text: String
}

/// A command of a ```console block and the output the document shows for it.
struct ConsoleCommand: Sendable {
    /// The file, relative to the repository (`README.md`, `docs/rules.md`).
    var file: String
    /// The line of the `$ ` prompt.
    var line: Int
    /// The shell text after `$ `; continuation lines (after a trailing `\`) are kept, joined with
    /// line breaks, so the shell reads them as it would in a terminal.
    var shellText: String
    /// The output lines the document shows, trailing blank lines trimmed.
    var expectedOutput: [DocumentLine]

    /// The command on one line, for messages and test names.
    var summary: String {
        shellText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
    }

    /// `file:line` of the prompt.
    var place: String { "\(file):\(line)" }
}

/// A ```console block: commands that run in order in one working directory.
struct ConsoleBlock: Sendable {
    /// The file, relative to the repository.
    var file: String
    /// The line of the opening fence.
    var line: Int
    /// The block's commands, in order (at least one).
    var commands: [ConsoleCommand]
}

/// A `$ ` prompt that no test runs: in a fenced block other than ```console, or outside any
/// fenced block (an indented code block).
struct UncheckedPrompt: Sendable, Equatable {
    /// The line of the prompt.
    var line: Int
    /// The fence's info string (`sh`, or empty), or nil outside any fenced block.
    var fence: String?
}

/// A Markdown file split into what the tests need: its ```console blocks, the prompts outside
/// them, and (for links) its lines outside fenced blocks.
///
/// Fences follow CommonMark: three or more backticks or tildes, indented or not (a block inside
/// a list item is still a block), closed by a line of at least as many of the same character;
/// the info string's first word names the language. So no console example escapes the run by
/// how its fence is written.
struct MarkdownDocument: Sendable {
    /// The file, relative to the repository.
    var file: String
    /// Every ```console block, in order.
    var consoleBlocks: [ConsoleBlock]
    /// `$ ` prompts that are not in a ```console block.
    var uncheckedPrompts: [UncheckedPrompt]
    /// The lines outside fenced blocks (headings and links live there).
    var prose: [DocumentLine]

    /// Reads and parses a file of the repository (`README.md`, `docs/rules.md`).
    static func load(_ file: String) throws -> MarkdownDocument {
        let text = try String(contentsOfFile: RepositoryPaths.root + "/" + file, encoding: .utf8)
        return try MarkdownDocument(parsing: text, file: file)
    }

    /// An open fenced block.
    private struct Fence {
        var marker: Character
        var length: Int
        var indent: Int
        var info: String
        var line: Int
        var body: [DocumentLine] = []
    }

    /// Parses Markdown text.
    /// - Throws: `DocumentFormatError` for a console block with output before its first command
    ///   or without any command, a continuation that runs into the end of the block, or an
    ///   unclosed fence.
    init(parsing text: String, file: String = "README.md") throws {
        self.file = file
        var blocks: [ConsoleBlock] = []
        var unchecked: [UncheckedPrompt] = []
        var prose: [DocumentLine] = []
        var fence: Fence?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, text) in lines.enumerated() {
            let line = DocumentLine(number: index + 1, text: text)
            let indent = text.prefix { $0 == " " }.count
            let content = text.dropFirst(indent)
            if let open = fence {
                if Self.closes(content, open) {
                    if open.info == "console" {
                        blocks.append(try Self.consoleBlock(file: file, fenceLine: open.line, body: open.body))
                    } else {
                        unchecked += open.body.filter { $0.text.hasPrefix("$ ") }
                            .map { UncheckedPrompt(line: $0.number, fence: open.info) }
                    }
                    fence = nil
                } else {
                    // The fence's indentation is not part of the block's text.
                    let kept = text.dropFirst(min(indent, open.indent))
                    fence?.body.append(DocumentLine(number: line.number, text: String(kept)))
                }
            } else if let opened = Self.opens(content, indent: indent, line: line.number) {
                fence = opened
            } else {
                if content.hasPrefix("$ ") { unchecked.append(UncheckedPrompt(line: line.number, fence: nil)) }
                prose.append(line)
            }
        }
        if let open = fence {
            throw DocumentFormatError(file: file, line: open.line, message: "the fence opened here is never closed")
        }
        consoleBlocks = blocks
        uncheckedPrompts = unchecked
        self.prose = prose
    }

    /// The fence a line opens: three or more backticks or tildes, then the info string.
    private static func opens(_ content: Substring, indent: Int, line: Int) -> Fence? {
        guard let marker = content.first, marker == "`" || marker == "~" else { return nil }
        let length = content.prefix { $0 == marker }.count
        guard length >= 3 else { return nil }
        let info = content.dropFirst(length).trimmingCharacters(in: .whitespaces)
        // A backtick fence's info string may not hold a backtick (that is inline code).
        if marker == "`", info.contains("`") { return nil }
        let language = info.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? ""
        return Fence(marker: marker, length: length, indent: indent, info: language, line: line)
    }

    /// Whether a line closes the open fence: only the fence's character, at least as many.
    private static func closes(_ content: Substring, _ fence: Fence) -> Bool {
        let trimmed = content.trimmingCharacters(in: .whitespaces)
        return trimmed.count >= fence.length && trimmed.allSatisfy { $0 == fence.marker }
    }

    /// Splits a console block's body into commands and their expected output.
    private static func consoleBlock(file: String, fenceLine: Int, body: [DocumentLine]) throws -> ConsoleBlock {
        var commands: [ConsoleCommand] = []
        var index = 0
        while index < body.count {
            let line = body[index]
            guard line.text.hasPrefix("$ ") else {
                if line.text.trimmingCharacters(in: .whitespaces).isEmpty, commands.isEmpty {
                    index += 1
                    continue
                }
                throw DocumentFormatError(
                    file: file, line: line.number, message: "output before the block's first `$ ` command: \(line.text)"
                )
            }
            var shellText = String(line.text.dropFirst(2))
            index += 1
            while shellText.hasSuffix("\\") {
                guard index < body.count else {
                    throw DocumentFormatError(
                        file: file, line: line.number, message: "the command's `\\` continues past the block")
                }
                shellText += "\n" + body[index].text
                index += 1
            }
            var output: [DocumentLine] = []
            while index < body.count, !body[index].text.hasPrefix("$ ") {
                output.append(body[index])
                index += 1
            }
            while let last = output.last, last.text.trimmingCharacters(in: .whitespaces).isEmpty {
                output.removeLast()
            }
            commands.append(
                ConsoleCommand(file: file, line: line.number, shellText: shellText, expectedOutput: output))
        }
        guard !commands.isEmpty else {
            throw DocumentFormatError(
                file: file, line: fenceLine,
                message: "a ```console block without a `$ ` command: nothing in it would be run")
        }
        return ConsoleBlock(file: file, line: fenceLine, commands: commands)
    }
}

/// A Markdown file does not follow the console-block conventions.
struct DocumentFormatError: Error, CustomStringConvertible {
    /// The file, relative to the repository.
    var file: String
    /// The line at fault.
    var line: Int
    /// What is wrong there.
    var message: String

    var description: String { "\(file):\(line): \(message)" }
}
