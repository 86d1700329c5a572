import Core
import Testing

/// The one strict reader of a JSON object's fields: every problem names the field by its JSON
/// pointer and says what is wrong; fields nobody read are refused at the end.
@Suite struct FieldReaderTests {
    static let object: JSONObject = [
        "name": "Rex", "kg": "12", "tags": ["a", 2], "empty": "", "id": "", "count": 7.5, "flag": "yes",
        "a/b~c": 1, "extra": true,
    ]

    struct Read: Sendable, CustomTestStringConvertible {
        var name: String
        var read: @Sendable (inout FieldReader) throws -> Void
        var code: FieldError.Code
        var path: String
        var message: String
        var testDescription: String { name }
    }

    static let reads: [Read] = [
        Read(
            name: "missing", read: { _ = try $0.string("breed") }, code: .missing, path: "/payload/breed",
            message: "`payload.breed` is required (a string)"),
        Read(
            name: "wrong type", read: { _ = try $0.number("kg") }, code: .wrongType, path: "/payload/kg",
            message: "`payload.kg` must be a number, got string"),
        Read(
            name: "an item of the wrong type", read: { _ = try $0.optionalStrings("tags") }, code: .wrongType,
            path: "/payload/tags/1", message: "`payload.tags[1]` must be a string, got number"),
        Read(
            name: "empty text", read: { _ = try $0.optionalString("empty") }, code: .invalid,
            path: "/payload/empty", message: "`payload.empty` must not be empty"),
        Read(
            name: "too long", read: { _ = try $0.string("name", maxLength: 2) }, code: .tooLong,
            path: "/payload/name", message: "`payload.name` must be at most 2 characters"),
        Read(
            name: "not an id", read: { _ = try $0.identifier("id") }, code: .invalid, path: "/payload/id",
            message: "`payload.id` must have 1 to 128 bytes, got 0"),
        Read(
            name: "out of range", read: { _ = try $0.optionalInteger("count", in: 1...5) }, code: .outOfRange,
            path: "/payload/count", message: "`payload.count` must be a whole number from 1 to 5"),
        Read(
            name: "not true or false", read: { _ = try $0.optionalBool("flag") }, code: .wrongType,
            path: "/payload/flag", message: "`payload.flag` must be true or false, got string"),
        Read(
            name: "a name with / and ~", read: { _ = try $0.string("a/b~c") }, code: .wrongType,
            path: "/payload/a~1b~0c", message: "`payload.a/b~c` must be a string, got number"),
    ]

    @Test(arguments: reads)
    func aProblemNamesItsFieldByItsPointer(_ read: Read) {
        var fields = FieldReader(Self.object, at: "/payload")
        let error = #expect(throws: FieldError.self) { try read.read(&fields) }
        #expect(error?.code == read.code && error?.path == read.path, "\(String(describing: error))")
        #expect(error?.description == read.message)
        #expect(fields.errors == error.map { [$0] }, "the problem is kept as well as thrown")
    }

    @Test func readingWithTryQuestionMarkKeepsEveryProblemForTheEnd() throws {
        var fields = FieldReader(["kg": "x", "note": "fine", "colour": "red", "extra": 1])
        #expect((try? fields.number("kg")) == nil)
        #expect((try? fields.string("when")) == nil)
        #expect(try fields.optionalString("note") == "fine")
        let problems = fields.problems()
        #expect(problems.map(\.code) == [.wrongType, .missing, .unknown, .unknown])
        #expect(problems.map(\.path) == ["/kg", "/when", "/colour", "/extra"])
        #expect(problems[2].known == ["kg", "when", "note"])
        #expect(problems[2].problem == "is not a known field (known: `kg`, `when`, `note`)")
        #expect(fields.problems(allowingUnknown: true).count == 2)
        #expect(throws: FieldError.self) { try fields.finish() }
    }

    @Test func finishRefusesTheFirstFieldNobodyRead() throws {
        var fields = FieldReader(["kg": 12, "colour": "red"], at: "/payload")
        #expect(try fields.number("kg") == 12)
        #expect(fields.has("colour") && !fields.has("size"))
        let error = #expect(throws: FieldError.self) { try fields.finish() }
        #expect(error?.code == .unknown && error?.path == "/payload/colour" && error?.known == ["kg"])
        _ = fields.value("colour")
        try fields.finish()
    }

    @Test func aNullIsAbsentAndAMemberKeepsIt() throws {
        var fields = FieldReader(["input": nil, "note": nil])
        #expect(try fields.optionalString("note") == nil)
        #expect(fields.member("input") == .null)
        #expect(fields.member("other") == nil)
        try fields.finish()
    }

    @Test func aProblemMovesToWhereTheBodyHadTheField() {
        let error = FieldError(.missing, at: "/payload/answer/guess", "is required")
        #expect(error.moved(from: "/payload/answer", to: "/answer")?.path == "/answer/guess")
        #expect(error.moved(from: "/payload", to: "")?.field == "answer.guess")
        #expect(error.moved(from: "/payload/ans", to: "") == nil)
        #expect(FieldError(.invalid, at: "", "is wrong").field == ".")
        #expect(JSONPointer.tokens("/a~1b/c~0d/2") == ["a/b", "c~d", "2"])
    }
}
