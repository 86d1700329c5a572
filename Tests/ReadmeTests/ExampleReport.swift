import Foundation

/// Failure messages for README examples: the README line, the command, expected and actual.
enum ExampleReport {
    /// The output differs from what the README shows.
    static func mismatch(_ command: ConsoleCommand, _ run: CommandRun, _ mismatch: OutputPattern.Mismatch) -> String {
        let actualLine = mismatch.outputLine.map { "`\($0)`" } ?? "(the output has ended)"
        let difference =
            if let readmeLine = mismatch.readmeLine {
                "README.md:\(readmeLine.number) shows `\(readmeLine.text)`; output line \(mismatch.outputLineNumber) is \(actualLine)"
            } else {
                "the README's output has ended; output line \(mismatch.outputLineNumber) is \(actualLine)"
            }
        return """
            README.md:\(command.line): `\(command.summary)` printed something else than the README shows
            first difference: \(difference)
            expected (README.md:\(command.expectedOutput.first?.number ?? command.line + 1)…):
            \(indented(command.expectedOutput.map(\.text)))
            actual (exit status \(run.status)):
            \(indented(OutputPattern.lines(of: run.output)))
            """
    }

    /// The command ran past the time limit and was stopped.
    static func timeout(_ command: ConsoleCommand, _ run: CommandRun) -> String {
        """
        README.md:\(command.line): `\(command.summary)` did not end within \(ExampleSandbox.timeLimit) and was stopped
        output so far:
        \(indented(OutputPattern.lines(of: run.output)))
        """
    }

    private static func indented(_ lines: [String]) -> String {
        lines.isEmpty ? "    (nothing)" : lines.map { "    " + $0 }.joined(separator: "\n")
    }
}
