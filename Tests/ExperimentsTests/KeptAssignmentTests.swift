import Core
import Experiments
import Features
import RuleEngine
import Store
import TestSupport
import Testing

/// A batch reads its subjects' assignments at once: each use in the batch is then answered from
/// what was kept (a new assignment kept as saved), with what the store would answer, on both
/// backends.
@Suite struct KeptAssignmentTests {
    @Test(arguments: TestStore.names)
    func aBatchUsesItsSubjectsAssignmentsWithoutAskingOneByOne(backend name: String) throws {
        let backend = try TestStore(name, schema: Features.all.schema)
        let store = backend.store
        let reads = try #require(store.transactionReads)
        let catalog = AssignmentTests.catalog(AssignmentTests.experiments())
        let assigner = ExperimentAssigner(catalog: catalog, store: store)
        let users = (0..<4).map(AssignmentTests.user)
        let now = AssignmentTests.now
        // One user assigned in an earlier batch.
        try store.transaction { _ = try assigner.use("greeting-test", subject: users[3], now: now - 60) }
        var firstUses: [String?] = []
        try store.transaction {
            assigner.keepReads(for: users)
            let hits = reads.hits
            for user in users { firstUses.append(try assigner.use("greeting-test", subject: user, now: now).variation) }
            #expect(reads.hits - hits == users.count, "every first use answered from the batch's one read")
            let again = reads.hits
            for (user, first) in zip(users, firstUses) {
                let assignment = try assigner.use("greeting-test", subject: user, now: now + 60)
                #expect(assignment.reason == .sticky && assignment.variation == first)
            }
            #expect(reads.hits - again == users.count, "a new assignment is kept as it was saved")
        }
        // What was kept is what the store holds.
        let fresh = ExperimentAssigner(catalog: catalog, readingFrom: try backend.connect())
        for (user, first) in zip(users, firstUses) {
            let stored = try fresh.assignment("greeting-test", subject: user, now: now + 120)
            #expect(stored.reason == .sticky && stored.variation == first)
        }
    }
}
