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

    /// The service refuses a PostgreSQL store in words until it can serve one.
    @Test func serveSaysItDoesNotRunOnPostgresYet() {
        let run = journey(["serve", "--port", "0", "--db", "postgresql://db/journey"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("journey serve does not run on a PostgreSQL store yet"), "\(run.stderr)")
    }
}
