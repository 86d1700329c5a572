import Testing

/// The conventions of ReadmeExampleTests, on small texts: how blocks are read and how output
/// is matched, so that a documented example can pass only by printing what it shows.
@Suite struct ConventionTests {
    private static func pattern(_ lines: String...) -> OutputPattern {
        OutputPattern(lines.enumerated().map { DocumentLine(number: $0.offset + 1, text: $0.element) })
    }

    @Test func exactLinesMatchOnlyThemselves() {
        let pattern = Self.pattern("ok: 43 rules", "done")
        #expect(pattern.mismatch(in: "ok: 43 rules\ndone\n") == nil)
        #expect(pattern.mismatch(in: "ok: 44 rules\ndone\n")?.documentLine?.number == 1)
        #expect(pattern.mismatch(in: "ok: 43 rules\n")?.outputLine == nil)
        #expect(pattern.mismatch(in: "ok: 43 rules\ndone\nmore\n")?.outputLine == "more")
    }

    @Test func trailingWhitespaceAndBlankLinesAreIgnored() {
        #expect(Self.pattern("STEP  MEDIAN").mismatch(in: "STEP  MEDIAN   \n\n\n") == nil)
        #expect(Self.pattern("STEP  MEDIAN").mismatch(in: "STEP MEDIAN") != nil)
    }

    @Test func anEllipsisInALineMatchesTextWithinThatLine() {
        let pattern = Self.pattern("PASS a (… ms)", "8 events in … s (… events/s)")
        #expect(pattern.mismatch(in: "PASS a (0.495 ms)\n8 events in 0.02 s (420 events/s)") == nil)
        #expect(pattern.mismatch(in: "PASS a (0.495 ms)\n9 events in 0.02 s (420 events/s)") != nil)
        #expect(Self.pattern("a…b").mismatch(in: "a\nb") != nil, "`…` within a line never spans lines")
        #expect(Self.pattern("ab…b").mismatch(in: "ab") != nil, "the pieces may not overlap")
    }

    @Test func anEllipsisLineMatchesAnyNumberOfLines() {
        let pattern = Self.pattern("first", "  …", "last")
        #expect(pattern.mismatch(in: "first\nlast") == nil)
        #expect(pattern.mismatch(in: "first\na\nb\nlast") == nil)
        #expect(pattern.mismatch(in: "first\na\nb") != nil)
        #expect(Self.pattern("…").mismatch(in: "") == nil)
    }

    @Test func commandsContinueAfterABackslashAndOwnTheLinesUpToTheNext() throws {
        let document = try MarkdownDocument(
            parsing: """
                ```console
                $ journey eval r \\
                    --trace
                out 1

                $ journey check
                ok
                ```
                ```sh
                scripts/run
                ```
                """, file: "docs/x.md")
        let commands = try #require(document.consoleBlocks.first).commands
        #expect(commands.map(\.line) == [2, 6])
        #expect(commands.map(\.place) == ["docs/x.md:2", "docs/x.md:6"])
        #expect(commands.first?.shellText == "journey eval r \\\n    --trace")
        #expect(commands.first?.summary == "journey eval r \\ --trace")
        #expect(commands.first?.expectedOutput == [DocumentLine(number: 4, text: "out 1")])
        #expect(document.uncheckedPrompts.isEmpty)
    }

    /// However the fence is written — indented in a list item, with tildes, with more
    /// backticks, with words after the language — a console block is a console block.
    @Test(arguments: [
        "```console\n$ journey check\nok\n```\n",
        "- a list item:\n\n  ```console\n  $ journey check\n  ok\n  ```\n",
        "~~~console\n$ journey check\nok\n~~~\n",
        "````console\n$ journey check\nok\n```\n````\n",
        "``` console title=\"x\"\n$ journey check\nok\n```\n",
    ])
    func everyWayOfWritingAConsoleFenceIsRun(_ text: String) throws {
        let document = try MarkdownDocument(parsing: text)
        let command = try #require(document.consoleBlocks.first?.commands.first)
        #expect(command.shellText == "journey check")
        #expect(command.expectedOutput.first?.text == "ok")
        #expect(document.uncheckedPrompts.isEmpty)
    }

    @Test func promptsOutsideConsoleBlocksAreFound() throws {
        let fenced = try MarkdownDocument(parsing: "```\n$ journey assign x\nout\n```\n")
        #expect(fenced.uncheckedPrompts == [UncheckedPrompt(line: 2, fence: "")])
        let indented = try MarkdownDocument(parsing: "text\n\n    $ journey assign x\n    out\n")
        #expect(indented.uncheckedPrompts == [UncheckedPrompt(line: 3, fence: nil)])
    }

    @Test func blocksThatWouldRunNothingAreRefused() {
        #expect(throws: DocumentFormatError.self) { try MarkdownDocument(parsing: "```console\nout\n$ journey\n```\n") }
        #expect(throws: DocumentFormatError.self) { try MarkdownDocument(parsing: "```console\n\n```\n") }
        #expect(throws: DocumentFormatError.self) { try MarkdownDocument(parsing: "```console\n$ journey check\n") }
    }

    @Test func formatErrorsNameTheFileAndLine() {
        let error = #expect(throws: DocumentFormatError.self) {
            try MarkdownDocument(parsing: "text\n```console\nout\n```\n", file: "docs/rules.md")
        }
        #expect(error?.description.hasPrefix("docs/rules.md:3: ") == true)
    }
}
