// The documents' examples, run as tests (as gojq's CI does for its README).
//
// Every ```console block of README.md and of every other Markdown file of the repository
// (`docs/**/*.md` and any other, outside hidden folders) is run, and what each command prints
// is compared with what the document shows:
//
// - A line beginning with `$ ` is a command; a trailing `\` continues it onto the next line.
//   It runs through `/bin/sh -c`, so pipes, `echo`, `sed` and a trailing `# comment` work as in
//   a terminal, with the built `journey` first on `PATH`, standard input empty, and a fixed
//   environment (`HOME` the working directory, `TZ=UTC`, `LC_ALL=C.UTF-8`, no `JOURNEY_*`).
//   Where output depends on the clock, the command says `--now`.
// - The lines after a command, up to the next `$ ` line, are its output: standard output and
//   standard error together, in the order written (as `2>&1` into a file gives them). Trailing
//   blank lines, and trailing whitespace of every line, are ignored.
// - A line that is only `…` (indentation allowed) matches any number of lines, none included.
// - `…` inside a line matches any text within that line: for volatile values such as timings
//   (`(… ms)`, `in … s (… events/s)`) and file sizes. Everything else must match exactly, so
//   keep real counts, names and revisions in the documents.
// - Exit statuses are not compared (the documents do not show them).
// - Each block runs in a fresh temporary directory holding copies of the repository's `Rules/`,
//   `Plugins/` and `examples/` (paths in commands are relative to the repository's root, in
//   every document): the default store `./journey.sqlite` starts empty, and the commands of one
//   block share it, in order. A block that edits a file (`$ sed -i …`) shows the edit.
// - Commands that cannot run here (`journey serve`, which never ends; `curl` against it;
//   `scripts/…`) go in ```sh blocks, written without the `$ ` prompt: shown, never run. A `$ `
//   prompt anywhere but in a ```console block — another fence, an indented code block — fails
//   `everyDocumentFollowsTheConventions`, and so does a ```console block without a command: no
//   example escapes the check by how it is written. A failure names the file and line.

import Foundation
import Testing

/// A ```console block as a test argument, named by its file, line and commands.
struct ConsoleExample: Sendable, CustomTestStringConvertible {
    /// The block.
    var block: ConsoleBlock

    var testDescription: String {
        "\(block.file):\(block.line): " + block.commands.map(\.summary).joined(separator: "; ")
    }

    /// Every console block of every document that parses (those that do not fail
    /// `everyDocumentFollowsTheConventions`).
    static func all() throws -> [ConsoleExample] {
        try RepositoryPaths.markdownFiles().flatMap { file in
            ((try? MarkdownDocument.load(file))?.consoleBlocks ?? []).map { ConsoleExample(block: $0) }
        }
    }
}

@Suite struct ReadmeExampleTests {
    /// Each console block, its commands run in order in one fresh directory; every command whose
    /// output differs from the document is reported at its file and line.
    @Test(arguments: try ConsoleExample.all())
    func consoleBlockPrintsWhatTheDocumentShows(_ example: ConsoleExample) async throws {
        let sandbox = try ExampleSandbox(buildDirectory: try RepositoryPaths.buildDirectory())
        for command in example.block.commands {
            let run = try await sandbox.run(command.shellText)
            let pattern = OutputPattern(command.expectedOutput)
            if run.timedOut {
                Issue.record(
                    Comment(rawValue: ExampleReport.timeout(command, run)), sourceLocation: Self.location(of: command))
            } else if let mismatch = pattern.mismatch(in: run.output) {
                Issue.record(
                    Comment(rawValue: ExampleReport.mismatch(command, run, mismatch)),
                    sourceLocation: Self.location(of: command))
            }
        }
    }

    /// Every Markdown file parses, and shows commands with a `$ ` prompt only in ```console
    /// blocks, which are run.
    @Test func everyDocumentFollowsTheConventions() throws {
        for file in try RepositoryPaths.markdownFiles() {
            let document: MarkdownDocument
            do {
                document = try MarkdownDocument.load(file)
            } catch let error as DocumentFormatError {
                Issue.record(Comment(rawValue: error.description), sourceLocation: Self.location(file, error.line))
                continue
            }
            for prompt in document.uncheckedPrompts {
                let place =
                    prompt.fence.map { "in a ```\($0) block" } ?? "outside any fenced block (an indented code block)"
                Issue.record(
                    """
                    \(file):\(prompt.line): a `$ ` command \(place) is never run; use ```console to have it \
                    checked, or a ```sh block without the prompt for what cannot run in a test
                    """, sourceLocation: Self.location(file, prompt.line))
            }
        }
    }

    /// The examples are found at all (a parse that finds none would pass vacuously): the
    /// README's tour, and the pages under `docs/`.
    @Test func theDocumentsHaveConsoleExamples() throws {
        let examples = try ConsoleExample.all()
        let readme = examples.filter { $0.block.file == "README.md" }.count
        let docs = examples.filter { $0.block.file.hasPrefix("docs/") }.count
        #expect(readme >= 5, "README.md has \(readme) ```console blocks")
        #expect(docs >= 10, "docs/ has \(docs) ```console blocks")
    }

    /// The place of a command, so that failures point into its document.
    private static func location(of command: ConsoleCommand) -> SourceLocation {
        location(command.file, command.line)
    }

    private static func location(_ file: String, _ line: Int) -> SourceLocation {
        SourceLocation(
            fileID: "ReadmeTests/\(file)", filePath: RepositoryPaths.root + "/" + file, line: line, column: 1)
    }
}
