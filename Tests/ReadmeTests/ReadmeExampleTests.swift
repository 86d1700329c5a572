// The README's examples, run as tests (as gojq's CI does for its README).
//
// Every ```console block of README.md is run, and what each command prints is compared with
// what the README shows:
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
//   keep real counts, names and revisions in the README.
// - Exit statuses are not compared (the README does not show them).
// - Each block runs in a fresh temporary directory holding copies of `Rules/`, `Plugins/` and
//   `examples/`: the default store `./journey.sqlite` starts empty, and the commands of one
//   block share it, in order. A block that edits a file (`$ sed -i …`) shows the edit.
// - Commands that cannot run here (`journey serve`, which never ends; `curl` against it;
//   `scripts/…`) go in ```sh blocks, written without the `$ ` prompt: shown, never run. A `$ `
//   prompt in any fenced block other than ```console fails `noPromptOutsideConsoleBlocks`, so
//   no example escapes the check by its fence.

import Foundation
import Testing

/// A ```console block as a test argument, named by its README line and its commands.
struct ReadmeExample: Sendable, CustomTestStringConvertible {
    /// The block.
    var block: ConsoleBlock

    var testDescription: String {
        "README.md:\(block.line): " + block.commands.map(\.summary).joined(separator: "; ")
    }

    /// Every console block of the README.
    static func all() throws -> [ReadmeExample] {
        try ReadmeDocument.load().consoleBlocks.map { ReadmeExample(block: $0) }
    }
}

@Suite struct ReadmeExampleTests {
    /// Each console block, its commands run in order in one fresh directory; every command whose
    /// output differs from the README is reported at its README line.
    @Test(arguments: try ReadmeExample.all())
    func consoleBlockPrintsWhatTheReadmeShows(_ example: ReadmeExample) async throws {
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

    /// The README has console examples at all (a parse that finds none would pass vacuously).
    @Test func readmeHasConsoleExamples() throws {
        let blocks = try ReadmeDocument.load().consoleBlocks
        #expect(blocks.count >= 5, "README.md has \(blocks.count) ```console blocks")
        #expect(blocks.allSatisfy { !$0.commands.isEmpty }, "a ```console block without a `$ ` command")
    }

    /// Commands are shown with a `$ ` prompt only in ```console blocks, which are run.
    @Test func noPromptOutsideConsoleBlocks() throws {
        for prompt in try ReadmeDocument.load().uncheckedPrompts {
            Issue.record(
                """
                README.md:\(prompt.line): a `$ ` command in a ```\(prompt.fence) block is never run; use ```console \
                to have it checked, or a ```sh block without the prompt for what cannot run in a test
                """)
        }
    }

    /// The README line of a command, so that failures point into README.md.
    private static func location(of command: ConsoleCommand) -> SourceLocation {
        SourceLocation(
            fileID: "ReadmeTests/README.md", filePath: RepositoryPaths.readme, line: command.line, column: 1)
    }
}
