import Core
import Store
import TestSupport
import Testing

/// A transaction either keeps what it wrote or throws, on every backend, even when a statement
/// inside it failed and its error was caught (PostgreSQL aborts the transaction then, and answers
/// its COMMIT with ROLLBACK).
@Suite struct AbortedTransactionConformanceTests {
    @Test(arguments: TestStore.names)
    func aTransactionThatReturnsKeptItsRows(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        try StoreConformanceTests.seed(store)
        var returned = true
        do {
            try store.transaction {
                _ = try store.insertEvent(StoreConformanceTests.event("e1"))
                _ = try? store.rows("SELECT no_such_column FROM events", []) { $0.integer(0) }
            }
        } catch {
            returned = false
        }
        let stored = try store.event(user: "u1", eventID: "e1") != nil
        #expect(
            stored == returned,
            "the transaction \(returned ? "returned" : "threw") and its event is \(stored ? "" : "not ")stored")
    }
}
