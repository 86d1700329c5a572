import Store
import TestSupport
import Testing

/// A secret the service keeps in its store, on every backend: made on first use, 32 bytes,
/// the same for every connection from then on, another in another store.
@Suite struct ServiceSecretTests {
    @Test(arguments: TestStore.names)
    func aSecretIsMadeOnceAndKept(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let first = try backend.store.serviceSecret("handles", now: 1)
        #expect(first.count == 32)
        #expect(try backend.store.serviceSecret("handles", now: 2) == first)
        #expect(try backend.store.serviceSecret("other", now: 3) != first)
        let elsewhere = try TestStore(name, schema: .core)
        #expect(try elsewhere.store.serviceSecret("handles", now: 1) != first)
    }
}
