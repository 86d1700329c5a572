import Core
import Store
import TestSupport
import Testing

@testable import Journey

/// A batch that writes a user's return event keeps what it had read of it: the batch's later
/// opens are answered without asking the store again, and with what the store would answer
/// (its id read when a late open needs it), on both backends.
@Suite struct KeptReturnAnalyticsTests {
    struct InsertCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The inserted row's properties (its user and name are those read).
        var properties: String
        /// Whether the read after the insert is answered from what was kept.
        var kept: Bool
        var testDescription: String { name }
    }

    static let inserts: [InsertCase] = [
        InsertCase(name: "the dog's row becomes the answer", properties: #"{"dog_id":"miso","days":1}"#, kept: true),
        InsertCase(name: "another dog's row leaves none", properties: #"{"dog_id":"rex","days":1}"#, kept: true),
        InsertCase(name: "a longer dog id is another dog", properties: #"{"dog_id":"miso2"}"#, kept: true),
        InsertCase(
            name: "a dog id only a case-blind LIKE matches is read again", properties: #"{"dog_id":"MISO"}"#,
            kept: false),
    ]

    static let name = JourneyAnalytics.returnName

    static func insert(_ properties: String, at: Double, into store: any Store) throws {
        try store.runDeferred(
            "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)",
            [.text("owner"), .text(name), .real(at), .text(properties), .null])
    }

    /// What the store answers now, read afresh.
    static func fresh(_ store: any Store) throws -> KeptAnalytics? {
        try store.first(
            """
            SELECT id, occurred_at, sent_at FROM analytics_outbox
            WHERE user_id = 'owner' AND name = ? AND properties LIKE '%"dog_id":"miso"%' ORDER BY id LIMIT 1
            """, [.text(name)]
        ) { KeptAnalytics(id: $0.integer(0), occurredAt: $0.real(1), sentAt: $0.optionalReal(2)) }
    }

    @Test(arguments: TestStore.names, inserts)
    func anInsertIntoNoRowKeepsTheAnswer(backend name: String, _ testCase: InsertCase) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        let reads = try #require(store.transactionReads)
        try store.transaction {
            #expect(try store.analytics(user: "owner", name: Self.name, dog: "miso") == nil)
            try Self.insert(testCase.properties, at: 100, into: store)
            let hits = reads.hits
            var answer = try store.analytics(user: "owner", name: Self.name, dog: "miso")
            #expect((reads.hits > hits) == testCase.kept, "answered from what was kept")
            if answer != nil, answer?.id == nil {
                answer?.id = try store.analyticsID(user: "owner", name: Self.name, dog: "miso")
            }
            #expect(answer == (try Self.fresh(store)))
        }
    }

    @Test(arguments: TestStore.names)
    func aRowReadStaysTheFirst(backend name: String) throws {
        let backend = try TestStore(name, schema: .core)
        let store = backend.store
        let reads = try #require(store.transactionReads)
        try store.transaction { try Self.insert(#"{"dog_id":"miso"}"#, at: 200, into: store) }
        try store.transaction {
            let read = try store.analytics(user: "owner", name: Self.name, dog: "miso")
            #expect(read?.id != nil && read?.occurredAt == 200)
            try Self.insert(#"{"dog_id":"miso"}"#, at: 50, into: store)  // earlier, but a later row
            let hits = reads.hits
            #expect(try store.analytics(user: "owner", name: Self.name, dog: "miso") == read)
            #expect(reads.hits > hits)
            #expect(try Self.fresh(store) == read)
        }
    }
}
