import Foundation

/// Failure messages for documented examples: the file and line, the command, expected and actual.
enum ExampleReport {
    /// The output differs from what the document shows.
    static func mismatch(_ command: ConsoleCommand, _ run: CommandRun, _ mismatch: OutputPattern.Mismatch) -> String {
        let actualLine = mismatch.outputLine.map { "`\($0)`" } ?? "(the output has ended)"
        let difference =
            if let shown = mismatch.documentLine {
                "\(command.file):\(shown.number) shows `\(shown.text)`; output line \(mismatch.outputLineNumber) is \(actualLine)"
            } else {
                "the shown output has ended; output line \(mismatch.outputLineNumber) is \(actualLine)"
            }
        return """
            \(command.place): `\(command.summary)` printed something else than \(command.file) shows
            first difference: \(difference)
            expected (\(command.file):\(command.expectedOutput.first?.number ?? command.line + 1)…):
            \(indented(command.expectedOutput.map(\.text)))
            actual (exit status \(run.status)):
            \(indented(OutputPattern.lines(of: run.output)))
            """
    }

    /// The command ran past the time limit and was stopped.
    static func timeout(_ command: ConsoleCommand, _ run: CommandRun) -> String {
        """
        \(command.place): `\(command.summary)` did not end within \(ExampleSandbox.timeLimit) and was stopped
        output so far:
        \(indented(OutputPattern.lines(of: run.output)))
        """
    }

    private static func indented(_ lines: [String]) -> String {
        lines.isEmpty ? "    (nothing)" : lines.map { "    " + $0 }.joined(separator: "\n")
    }
}
