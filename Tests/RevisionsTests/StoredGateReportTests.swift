import Core
import RevisionStore
import Testing

/// A gate report kept before issue 42's names reads under today's: `rules` (a count) is
/// `rule_count`, a diagnostic's `notes` are `related_notes`; a report in today's names and
/// anything that is not a report are left as they are.
@Suite struct StoredGateReportTests {
    static let note: JSON = ["message": "defined here", "file": "Rules/a.yaml", "line": 2, "column": 1]

    static let cases: [(JSON, JSON)] = [
        (
            ["summary": "passed: 3 rules, 0 tests", "rules": 3, "diagnostics": [["code": "x", "notes": [note]]]],
            [
                "summary": "passed: 3 rules, 0 tests", "rule_count": 3,
                "diagnostics": [["code": "x", "related_notes": [note]]],
            ]

        ),
        (
            ["rule_count": 3, "diagnostics": [["code": "x", "related_notes": []]]],
            ["rule_count": 3, "diagnostics": [["code": "x", "related_notes": []]]]
        ),
        (["passed": true], ["passed": true]),
        (.null, .null),
    ]

    @Test(arguments: cases)
    func aStoredReportReadsUnderTodaysNames(stored: JSON, current: JSON) {
        #expect(StoredGateReport.current(stored) == current)
    }
}
