import Core
import TestSupport
import Testing

/// A case file is read strictly: a case that expects nothing, or a key its runner does not
/// know, is refused when the file is read (it would pass unchecked), naming the file and line.
@Suite struct CaseFileTests {
    static let keys = CaseKeys(
        expecting: ["expect", "error"], others: ["input"],
        parts: ["expect": CaseKeys(expecting: ["status"], others: ["body"])])

    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        /// `line:column` and a fragment of the problem.
        var place: String
        var problem: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(
            name: "a case that expects nothing",
            text: "cases:\n  - name: ok\n    expect: {status: 200}\n  - name: nothing\n    input: 1\n",
            place: "4:5", problem: "case `nothing` expects nothing: give `expect` or `error`"),
        Refusal(
            name: "a misspelt key",
            text: "cases:\n  - name: typo\n    expct: {status: 200}\n    error: x\n",
            place: "3:5", problem: "case `typo` has an unknown key `expct`; its keys are `name`, `expect`, `error`"),
        Refusal(
            name: "an unknown key in a part",
            text: "cases:\n  - name: deep\n    expect:\n      status: 200\n      bdoy: {}\n",
            place: "5:7", problem: "case `deep`, `expect` has an unknown key `bdoy`"),
        Refusal(
            name: "a part that expects nothing",
            text: "cases:\n  - name: empty part\n    expect: {body: {}}\n",
            place: "3:13", problem: "case `empty part`, `expect` expects nothing: give `status`"),
        Refusal(
            name: "a comma in a flow mapping's name",
            text: "cases:\n  - {name: late, sent 6 days later, expect: {status: 1}}\n",
            place: "2:18", problem: "unknown key `sent 6 days later` (a comma in a flow mapping's text? quote the text)"
        ),
    ]

    @Test(arguments: refusals)
    func refused(_ refusal: Refusal) throws {
        let folder = try TemporaryDirectory(["cases.yaml": refusal.text])
        let error = #expect(throws: CaseFileError.self) {
            try CaseFile(path: folder.file("cases.yaml")).cases(keys: Self.keys)
        }
        let description = error?.description ?? ""
        #expect(description.hasPrefix(folder.file("cases.yaml") + ":" + refusal.place + ": "), "\(description)")
        #expect(description.contains(refusal.problem), "\(description)")
    }

    @Test func aTableRowIsCheckedToo() throws {
        let folder = try TemporaryDirectory(["rows.yaml": "rows:\n  - {x: 1, y: 2}\n  - {x: 2}\n"])
        let file = try CaseFile(path: folder.file("rows.yaml"))
        let error = #expect(throws: CaseFileError.self) {
            try file.list("rows", keys: CaseKeys(expecting: ["y"], others: ["x"]))
        }
        #expect(error?.description.hasSuffix(":3:5: row 2 of `rows` expects nothing: give `y`") == true, "\(error!)")
        #expect(try file.list("rows", keys: CaseKeys(expecting: ["x"], others: ["y"])).count == 2)
    }

    @Test func casesWithTheirExpectationsAreRead() throws {
        let text = "cases:\n  - name: a\n    expect: {status: 1, body: x}\n  - name: b\n    error: e\n    input: 2\n"
        let folder = try TemporaryDirectory(["cases.yaml": text])
        let cases = try CaseFile(path: folder.file("cases.yaml")).cases(keys: Self.keys)
        #expect(cases.map(\.name) == ["a", "b"])
        #expect(cases[1]["input"] == 2)
    }
}
