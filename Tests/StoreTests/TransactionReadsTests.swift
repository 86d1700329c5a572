import Core
import Store
import TestSupport
import Testing

/// Reads kept for the rest of a write transaction (``TransactionReads``) answer exactly what the
/// query would: a write that may change them makes the next read ask the store again, on both
/// backends.
@Suite struct TransactionReadsTests {
    static let read = "SELECT name FROM analytics_outbox WHERE user_id = ? AND name = ? ORDER BY id"

    static func names(_ store: any Store, user: String = "u", name: String = "x") throws -> [String] {
        try store.keptRows(
            read, [.text(user), .text(name)], table: "analytics_outbox",
            keys: [("user_id", .text(user)), ("name", .text(name))]
        ) { $0.text(0) ?? "" }
    }

    static func insert(_ store: any Store, user: String, name: String) throws {
        try store.runDeferred(
            "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)",
            [.text(user), .text(name), .real(1), .text("{}"), .null])
    }

    /// A write between two reads, and whether the second read was answered from what was kept.
    static let writes: [(label: String, write: @Sendable (any Store) throws -> Void, kept: Bool, count: Int)] = [
        ("nothing", { _ in }, true, 0),
        ("another user's row", { try insert($0, user: "v", name: "x") }, true, 0),
        ("another name's row", { try insert($0, user: "u", name: "y") }, true, 0),
        (
            "another user's row, the insert written over lines",
            {
                try $0.runDeferred(
                    """
                    INSERT INTO analytics_outbox
                        (user_id, name, occurred_at, properties, event)
                    VALUES (?, ?, ?, ?, ?)
                    """, [.text("v"), .text("x"), .real(1), .text("{}"), .null])
            }, true, 0
        ),
        ("a row it reads", { try insert($0, user: "u", name: "x") }, false, 1),
        (
            // Another user's row, unless the row it conflicts with (by id only) is updated instead.
            "an insert that may update a row it reads",
            {
                try $0.runDeferred(
                    """
                    INSERT INTO analytics_outbox (id, user_id, name, occurred_at, properties, event)
                    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET occurred_at = excluded.occurred_at
                    """, [.integer(99), .text("v"), .text("x"), .real(1), .text("{}"), .null])
            }, false, 0
        ),
        ("a row of another table", { try $0.ensureUser("w", firstSeenAt: 2) }, true, 0),
        (
            "an update of its table",
            { try $0.run("UPDATE analytics_outbox SET occurred_at = 2 WHERE user_id = 'v'", []) }, false, 0
        ),
        ("a delete anywhere (keys cascade)", { try $0.run("DELETE FROM users WHERE user_id = 'w'", []) }, false, 0),
        (
            "an insert it cannot read the columns of",
            {
                try $0.run(
                    "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties) SELECT 'u', 'x', 1, '{}'", []
                )
            }, false, 1
        ),
    ]

    @Test(arguments: TestStore.names, writes.indices)
    func aWriteThatMayChangeAReadMakesItAskAgain(backend: String, index: Int) throws {
        let (label, write, kept, count) = Self.writes[index]
        let test = try TestStore(backend, schema: .core)
        let store = test.store
        let reads = try #require(store.transactionReads)
        try store.transaction {
            for user in ["u", "v"] { try store.ensureUser(user, firstSeenAt: 1) }
        }
        try store.transaction {
            #expect(try Self.names(store) == [])
            let hits = reads.hits
            try write(store)
            #expect(try Self.names(store) == Array(repeating: "x", count: count), "\(label)")
            #expect((reads.hits > hits) == kept, "\(label): kept")
        }
    }

    @Test(arguments: TestStore.names)
    func nothingIsKeptOutsideATransactionOrPastAUnitRolledBack(backend: String) throws {
        let test = try TestStore(backend, schema: .core)
        let store = test.store
        let reads = try #require(store.transactionReads)
        try store.transaction { try store.ensureUser("u", firstSeenAt: 1) }
        _ = try Self.names(store)
        _ = try Self.names(store)
        #expect(reads.hits == 0, "outside a transaction")
        try store.transaction {
            _ = try Self.names(store)
            struct Undo: Error {}
            // A unit that wrote rows the read sees, through a statement it cannot tell apart, undone.
            _ = try? store.savepoint {
                try Self.insert(store, user: "u", name: "x")
                #expect(try Self.names(store) == ["x"])
                throw Undo()
            }
            #expect(try Self.names(store) == [], "the unit's row is gone, and so is what was read of it")
        }
        let later = try store.transaction { try Self.names(store) }
        #expect(later == [])
        #expect(reads.hits == 0)
    }
}

/// Reads made for many keys at once (``StoreReader/keepRows(_:batchSQL:table:column:of:_:)``)
/// answer each key's read as the read itself would, keys without rows included, until a write
/// may change them.
@Suite struct KeptBatchReadsTests {
    static let read = "SELECT name FROM analytics_outbox WHERE user_id = ? ORDER BY id"

    static func names(_ store: any Store, user: String) throws -> [String] {
        try store.keptRows(read, [.text(user)], table: "analytics_outbox", keys: [("user_id", .text(user))]) {
            $0.text(0) ?? ""
        }
    }

    static func keepAll(_ store: any Store, users: [String]) throws {
        try store.keepRows(
            read, batchSQL: "SELECT user_id, name FROM analytics_outbox WHERE user_id IN ({keys}) ORDER BY user_id, id",
            table: "analytics_outbox", column: "user_id", of: users
        ) { $0.text(0) ?? "" }
    }

    @Test(arguments: TestStore.names)
    func eachKeyIsAnsweredAsItsOwnReadWould(backend: String) throws {
        let test = try TestStore(backend, schema: .core)
        let store = test.store
        let reads = try #require(store.transactionReads)
        // More users than one statement reads, some with rows and some without.
        let users = (0..<130).map { "u\($0)" }
        try store.transaction {
            for user in users { try store.ensureUser(user, firstSeenAt: 1) }
            for (index, user) in users.enumerated() where index % 3 != 0 {
                for name in ["b", "a"].prefix(index % 3) {
                    try TransactionReadsTests.insert(store, user: user, name: name)
                }
            }
        }
        let expected = try store.transaction { try users.map { try Self.names(store, user: $0) } }
        try store.transaction {
            try Self.keepAll(store, users: users + ["u1"])
            let hits = reads.hits
            #expect(try users.map { try Self.names(store, user: $0) } == expected)
            #expect(reads.hits - hits == users.count, "every read answered from the batch read")
            try TransactionReadsTests.insert(store, user: "u0", name: "c")
            #expect(try Self.names(store, user: "u0") == ["c"], "a write to a key's rows forgets them")
            #expect(reads.hits - hits == users.count)
            #expect(try Self.names(store, user: "u2") == expected[2], "and only that key's")
            #expect(reads.hits - hits == users.count + 1)
        }
        try Self.keepAll(store, users: users)
        _ = try Self.names(store, user: "u1")
        #expect(reads.hits == users.count + 1, "nothing is kept outside a transaction")
    }
}

/// A kept first-row read told how an insert changes its answer (``KeptAfterInsert``) is
/// updated by a plain insert of a row it may see, and answers what the query answers then;
/// any other write still makes it ask again.
@Suite struct KeptAfterInsertTests {
    static let read =
        "SELECT occurred_at FROM analytics_outbox WHERE user_id = ? AND name = ? ORDER BY occurred_at LIMIT 1"

    /// The earliest `x` of user `u`, kept: an inserted row's time moves it earlier.
    static func earliest(_ store: any Store) throws -> Double? {
        try store.keptFirst(
            read, [.text("u"), .text("x")], table: "analytics_outbox",
            keys: [("user_id", .text("u")), ("name", .text("x"))],
            afterInsert: KeptAfterInsert { row, old in
                guard case .real(let at)? = row("occurred_at") else { return nil }
                return .some(min(old ?? at, at))
            }
        ) { $0.real(0) }
    }

    static func insert(_ sql: String = "", at: Double) -> @Sendable (any Store) throws -> Void {
        { store in
            try store.runDeferred(
                "INSERT INTO analytics_outbox (user_id, name, occurred_at, properties, event) VALUES (?, ?, ?, ?, ?)"
                    + sql, [.text("u"), .text("x"), .real(at), .text("{}"), .null])
        }
    }

    /// Rows before the read, a write after it, whether the next read was answered from what was
    /// kept, and what it answers.
    static let cases:
        [(label: String, before: [Double], write: @Sendable (any Store) throws -> Void, kept: Bool, answer: Double?)] =
            [
                ("a first row", [], insert(at: 5), true, 5),
                ("an earlier row", [7], insert(at: 5), true, 5),
                ("a later row", [3], insert(at: 5), true, 3),
                ("a row it cannot see", [3], { try TransactionReadsTests.insert($0, user: "v", name: "x") }, true, 3),
                ("an insert that may not insert", [7], insert(" ON CONFLICT (id) DO NOTHING", at: 5), false, 5),
                ("an insert it cannot read", [7], insert(" ON CONFLICT DO NOTHING", at: 5), false, 5),
                (
                    "an update of its table", [7], { try $0.run("UPDATE analytics_outbox SET occurred_at = 1", []) },
                    false, 1
                ),
            ]

    @Test(arguments: TestStore.names, cases.indices)
    func aPlainInsertUpdatesTheAnswerKept(backend: String, index: Int) throws {
        let (label, before, write, kept, answer) = Self.cases[index]
        let test = try TestStore(backend, schema: .core)
        let store = test.store
        let reads = try #require(store.transactionReads)
        try store.transaction {
            for user in ["u", "v"] { try store.ensureUser(user, firstSeenAt: 1) }
            for at in before { try Self.insert(at: at)(store) }
        }
        try store.transaction {
            _ = try Self.earliest(store)
            let hits = reads.hits
            try write(store)
            #expect(try Self.earliest(store) == answer, "\(label)")
            #expect((reads.hits > hits) == kept, "\(label): kept")
            let fresh = try store.first(Self.read, [.text("u"), .text("x")]) { $0.real(0) }
            #expect(fresh == answer, "\(label): the query itself")
        }
    }
}
