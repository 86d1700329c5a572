import Core
import Engine
import JQ
import Testing

/// The event as rules see it is built straight into a libjq value; it must be the event's
/// JSON, member for member and in the same order.
@Suite struct EventRuleValueTests {
    static let events: [(String, JSON)] = [
        (
            "with a dog and a nested payload",
            [
                "event_id": "e-1", "user_id": "u-ü", "type": "weight_logged",
                "occurred_at": "2026-11-25T09:00:00+01:00",
                "dog_id": "q", "payload": ["kg": 9.5, "note": ["tags": ["a", "🐕"], "none": .null]],
            ]
        ),
        (
            "without a dog or payload",
            ["event_id": "e-2", "user_id": "u", "type": "app_opened", "occurred_at": "2026-11-25T09:00:00Z"]
        ),
    ]

    @Test(arguments: events)
    func theRuleValueIsTheEventsJSON(_ name: String, _ line: JSON) throws {
        let event = try Event(validating: line, receivedAt: Timestamp.parse("2026-11-25T09:00:00Z")!)
        let value = try event.ruleValue.json()
        #expect(value == event.json)
        #expect(value.compactText == event.json.compactText)
    }
}
