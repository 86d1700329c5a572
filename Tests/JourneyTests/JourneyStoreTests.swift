import Core
import Journey
import Store
import TestSupport
import Testing

/// The Dog Journey's rows, on every backend: one manifest per dog, catalog snapshots kept once
/// by hash, block steps kept at their earliest time.
@Suite struct JourneyStoreTests {
    @Test(arguments: TestStore.names)
    func journeyRowsRoundTrip(backend name: String) throws {
        let backend = try TestStore(name, schema: Schema([JourneyFeature().migrations]))
        let store = backend.store
        try store.ensureUser("u1", firstSeenAt: 10)
        try store.insertDog(DogProfile(id: "d1", userID: "u1", name: "Rex", registeredAt: 11))
        let manifest = StoredManifest(dogID: "d1", ruleRevision: "r1", createdAt: 12, manifest: ["blocks": ["b1"]])
        try store.insertManifest(manifest)
        #expect(try store.manifest(dog: "d1") == manifest)
        #expect(try store.manifest(dog: "d2") == nil)
        #expect(throws: (any Error).self) { try store.insertManifest(manifest) }
        #expect(try store.hasCatalogSnapshot(hash: "h") == false)
        try store.insertCatalogSnapshot(hash: "h", text: #"{"a":[1,2]}"#, at: 1)
        try store.insertCatalogSnapshot(hash: "h", text: "{}", at: 2)  // kept once
        #expect(try store.hasCatalogSnapshot(hash: "h"))
        #expect(try store.catalogSnapshot(hash: "h") == ["a": [1, 2]])
        let event = try store.insertEvent(
            StoredEvent(
                userID: "u1", eventID: "e1", type: "walk", dogID: "d1", occurredAt: 100, occurredAtText: "t",
                receivedAt: 101, payload: [:], outcome: [:]))
        #expect(try store.completeBlockStep(dog: "d1", block: "b1", step: "s1", at: 5, event: event))
        #expect(try store.completeBlockStep(dog: "d1", block: "b1", step: "s1", at: 6, event: nil) == false)
        #expect(try store.completeBlockStep(dog: "d1", block: "b1", step: "s1", at: 4, event: nil), "earlier")
        #expect(try store.completeBlockStep(dog: "d1", block: "b1", step: "s2", at: 7, event: nil))
        #expect(
            try store.blockSteps(dog: "d1") == [
                BlockStep(blockID: "b1", step: "s1", completedAt: 4),
                BlockStep(blockID: "b1", step: "s2", completedAt: 7),
            ])
    }
}
