import Foundation

/// One line of the README, with its 1-based line number.
struct ReadmeLine: Sendable, Equatable {
    /// The line number in README.md, counting from 1.
    var number: Int
    /// The line's text, without its line break.
    var text: String
}

/// A command of a ```console block and the output the README shows for it.
struct ConsoleCommand: Sendable {
    /// The README line of the `$ ` prompt.
    var line: Int
    /// The shell text after `$ `; continuation lines (after a trailing `\`) are kept, joined with
    /// line breaks, so the shell reads them as it would in a terminal.
    var shellText: String
    /// The output lines the README shows, trailing blank lines trimmed.
    var expectedOutput: [ReadmeLine]

    /// The command on one line, for messages and test names.
    var summary: String {
        shellText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
    }
}

/// A ```console block: commands that run in order in one working directory.
struct ConsoleBlock: Sendable {
    /// The README line of the opening fence.
    var line: Int
    /// The block's commands, in order.
    var commands: [ConsoleCommand]
}

/// A fenced block that is not ```console but holds `$ ` prompts: an example that would escape
/// the check.
struct UncheckedPrompt: Sendable, Equatable {
    /// The README line of the prompt.
    var line: Int
    /// The fence's info string (`sh`, or empty).
    var fence: String
}

/// README.md split into what the tests need: its ```console blocks, and prompts outside them.
struct ReadmeDocument: Sendable {
    /// Every ```console block, in README order.
    var consoleBlocks: [ConsoleBlock]
    /// `$ ` prompts in fenced blocks other than ```console.
    var uncheckedPrompts: [UncheckedPrompt]

    /// Reads and parses the repository's README.md.
    static func load() throws -> ReadmeDocument {
        let text = try String(contentsOfFile: RepositoryPaths.readme, encoding: .utf8)
        return try ReadmeDocument(parsing: text)
    }

    /// Parses README text.
    /// - Throws: `ReadmeFormatError` for a console block with output before its first command,
    ///   a continuation that runs into the end of the block, or an unclosed fence.
    init(parsing text: String) throws {
        var blocks: [ConsoleBlock] = []
        var unchecked: [UncheckedPrompt] = []
        var fence: (info: String, line: Int, body: [ReadmeLine])?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, text) in lines.enumerated() {
            let line = ReadmeLine(number: index + 1, text: text)
            if let open = fence {
                if text.trimmingCharacters(in: .whitespaces) == "```" {
                    if open.info == "console" {
                        blocks.append(try Self.consoleBlock(fenceLine: open.line, body: open.body))
                    } else {
                        unchecked += open.body.filter { $0.text.hasPrefix("$ ") }
                            .map { UncheckedPrompt(line: $0.number, fence: open.info) }
                    }
                    fence = nil
                } else {
                    fence?.body.append(line)
                }
            } else if text.hasPrefix("```") {
                fence = (String(text.dropFirst(3)).trimmingCharacters(in: .whitespaces), line.number, [])
            }
        }
        if let open = fence {
            throw ReadmeFormatError(line: open.line, message: "the fence opened here is never closed")
        }
        consoleBlocks = blocks
        uncheckedPrompts = unchecked
    }

    /// Splits a console block's body into commands and their expected output.
    private static func consoleBlock(fenceLine: Int, body: [ReadmeLine]) throws -> ConsoleBlock {
        var commands: [ConsoleCommand] = []
        var index = 0
        while index < body.count {
            let line = body[index]
            guard line.text.hasPrefix("$ ") else {
                if line.text.trimmingCharacters(in: .whitespaces).isEmpty, commands.isEmpty {
                    index += 1
                    continue
                }
                throw ReadmeFormatError(
                    line: line.number, message: "output before the block's first `$ ` command: \(line.text)")
            }
            var shellText = String(line.text.dropFirst(2))
            index += 1
            while shellText.hasSuffix("\\") {
                guard index < body.count else {
                    throw ReadmeFormatError(line: line.number, message: "the command's `\\` continues past the block")
                }
                shellText += "\n" + body[index].text
                index += 1
            }
            var output: [ReadmeLine] = []
            while index < body.count, !body[index].text.hasPrefix("$ ") {
                output.append(body[index])
                index += 1
            }
            while let last = output.last, last.text.trimmingCharacters(in: .whitespaces).isEmpty {
                output.removeLast()
            }
            commands.append(ConsoleCommand(line: line.number, shellText: shellText, expectedOutput: output))
        }
        return ConsoleBlock(line: fenceLine, commands: commands)
    }
}

/// README.md does not follow the console-block conventions.
struct ReadmeFormatError: Error, CustomStringConvertible {
    /// The README line at fault.
    var line: Int
    /// What is wrong there.
    var message: String

    var description: String { "README.md:\(line): \(message)" }
}
