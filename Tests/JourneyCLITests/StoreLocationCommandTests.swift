import Foundation
import TestSupport
import Testing

/// `--db` names a store location; one that names no store is a usage error saying why, for
/// every command that opens a store.
@Suite struct StoreLocationCommandTests {
    @Test(arguments: [["db", "stats"], ["db", "migrate"], ["revisions"], ["dog", "today", "q-123"]])
    func anUnknownSchemeIsAUsageError(command: [String]) {
        let run = journey(command + ["--db", "mysql://db/journey"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("`mysql:` is not a store this engine knows"), "\(run.stderr)")
    }

    @Test func aPostgresServerThatDoesNotAnswerIsNamed() {
        let run = journey(["db", "migrate", "--db", "postgresql://journey@127.0.0.1:1/journey"])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains("postgresql://journey@127.0.0.1:1/journey") && run.stderr.contains("cannot connect"),
            "\(run.stderr)")
    }

    /// The service on a PostgreSQL server that does not answer says which (without the
    /// password) and why, and stops.
    @Test func serveNamesAPostgresServerThatDoesNotAnswer() throws {
        // The executable: the supervisor writes its log to the process's own stderr.
        let folder = try TemporaryDirectory()
        let run = try ProcessRun(
            try BuiltExecutable.path("journey"),
            ["serve", "--port", "0", "--db", "postgresql://journey:secret@127.0.0.1:1/journey"], in: folder.path)
        let text = run.stderr
        #expect(run.status == 1, "\(text)")
        #expect(text.contains("postgresql://journey@127.0.0.1:1/journey") && text.contains("cannot connect"), "\(text)")
        #expect(!text.contains("secret"))
    }
}
