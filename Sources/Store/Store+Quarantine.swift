import Core

/// The quarantine on every backend (one SQL): a record stays until the rule's digest changes or
/// an admin lifts it.
extension Store {
    public func quarantine(_ record: QuarantineRecord) throws {
        let (sql, values) = QuarantineSQL.insert(record)
        try run(sql, values)
    }

    public func quarantineRecords() throws -> [QuarantineRecord] {
        try rows(QuarantineSQL.select) { QuarantineSQL.record($0) }
    }

    public func liftQuarantine(rule: String, input: String?) throws -> Int {
        try QuarantineSQL.lift(rule: rule, input: input).reduce(0) { $0 + (try run($1.0, $1.1)) }
    }

    /// Lifts every quarantine record of `rule`.
    public func liftQuarantine(rule: String) throws -> Int { try liftQuarantine(rule: rule, input: nil) }
}

/// The quarantine's SQL, the same on both backends: service-wide records in `rule_quarantine`,
/// per-input ones in `rule_input_quarantine`.
enum QuarantineSQL {
    static func insert(_ record: QuarantineRecord) -> (String, [SQLValue]) {
        let common: [SQLValue] = [
            .text(record.ruleID), .text(record.ruleDigest), .text(record.reason), .optional(record.inputDigest),
            .text(record.detail), .real(record.quarantinedAt),
        ]
        guard let key = record.inputKey else {
            return (
                """
                INSERT INTO rule_quarantine (rule_id, rule_digest, reason, input_digest, detail, quarantined_at)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (rule_id, rule_digest) DO NOTHING
                """, common
            )
        }
        return (
            """
            INSERT INTO rule_input_quarantine
                (rule_id, rule_digest, reason, input_digest, detail, quarantined_at, input_key)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (rule_id, rule_digest, input_key) DO NOTHING
            """, common + [.text(key)]
        )
    }

    static let select = """
        SELECT rule_id, rule_digest, reason, input_digest, detail, quarantined_at, NULL AS input_key
        FROM rule_quarantine
        UNION ALL
        SELECT rule_id, rule_digest, reason, input_digest, detail, quarantined_at, input_key
        FROM rule_input_quarantine
        ORDER BY 6 DESC, 1, 7
        """

    static func record(_ row: any SQLRow) -> QuarantineRecord {
        QuarantineRecord(
            ruleID: row.text(0) ?? "", ruleDigest: row.text(1) ?? "", reason: row.text(2) ?? "",
            inputDigest: row.text(3), inputKey: row.text(6), detail: row.text(4) ?? "", quarantinedAt: row.real(5))
    }

    /// The deletes lifting `rule`'s quarantine (for `input` only, when given).
    static func lift(rule: String, input: String?) -> [(String, [SQLValue])] {
        guard let input else {
            return [
                ("DELETE FROM rule_quarantine WHERE rule_id = ?", [.text(rule)]),
                ("DELETE FROM rule_input_quarantine WHERE rule_id = ?", [.text(rule)]),
            ]
        }
        return [("DELETE FROM rule_input_quarantine WHERE rule_id = ? AND input_key = ?", [.text(rule), .text(input)])]
    }
}
