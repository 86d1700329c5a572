import Core
import Foundation
import JQ
import RuleEngine
import Store

/// Registers a dog from `dog_registered` (payload: `name`, `birth_date` or `age_range`,
/// `breed`, `timezone`, `metrics`). Registering an existing dog again is accepted with no
/// effects; a dog id another user registered is a conflict.
public struct DogRegistrationConsumer: EventConsumer {
    public let name = "dog_registration"
    /// It reads only dogs.
    public func readsReminders(for event: Event) -> Bool { false }
    static let fields = ["name", "birth_date", "age_range", "breed", "timezone", "metrics"]

    public init() {}

    public func effects(of event: Event, in context: ConsumerContext) throws -> [Effect] {
        guard event.type == "dog_registered" else { return [] }
        guard let dogID = event.dogID else {
            throw Rejection(.invalid, "dog_registered needs a `dog_id`")
        }
        // The ingestor has looked the dog up already (`context.dog` is the stored one, if any).
        let stored = context.dogLookedUp ? context.dog : try context.store.dog(dogID)
        if let existing = stored {
            guard existing.userID == event.userID else {
                throw Rejection(.conflict, "dog \(dogID) is registered by another user")
            }
            return []  // already registered: idempotent
        }
        return [.dogRegistered(try profile(dogID, event))]
    }

    func profile(_ dogID: String, _ event: Event) throws(Rejection) -> DogProfile {
        let payload = event.payload
        for key in payload.keys where !Self.fields.contains(key) {
            throw Rejection(
                .invalid,
                "unknown field `payload.\(key)` in dog_registered; fields: \(Self.fields.joined(separator: ", "))",
                field: Self.field(
                    key, .unknown,
                    "is not a known field (known: \(Self.fields.map { "`\($0)`" }.joined(separator: ", ")))"
                ))
        }
        let name = try requiredText(payload, "name", maximum: 60)
        let birthDate = try optionalText(payload, "birth_date", maximum: 10)
        let ageRange = try optionalText(payload, "age_range", maximum: 16)
        guard birthDate != nil || ageRange != nil else {
            throw Rejection(
                .invalid, "dog_registered needs `payload.birth_date` (YYYY-MM-DD) or `payload.age_range` (e.g. 4-8m)",
                field: Self.field("birth_date", .missing, "or `age_range` is required"))
        }
        if let birthDate {
            guard let born = Self.dateSeconds(birthDate) else {
                throw Rejection(Self.field("birth_date", .invalid, "must be a date YYYY-MM-DD, got \"\(birthDate)\""))
            }
            guard born <= event.occurredAt else {
                throw Rejection(Self.field("birth_date", .invalid, "\(birthDate) is after the registration"))
            }
        }
        if let ageRange, !Self.isAgeRange(ageRange) {
            throw Rejection(Self.field("age_range", .invalid, "must look like 4-8m, 1-3y or 7y+, got \"\(ageRange)\""))
        }
        let breed = try optionalText(payload, "breed", maximum: 64)
        let timezone = try requiredText(payload, "timezone", maximum: 64)
        guard Self.isTimeZone(timezone) else {
            throw Rejection(
                Self.field(
                    "timezone", .invalid, "must be an IANA time zone such as Europe/Berlin, got \"\(timezone)\""))
        }
        var metrics: JSONObject = [:]
        switch payload["metrics"] {
        case nil, .null?: break
        case .object(let values)?:
            for (metric, value) in values {
                let path = JSONPointer.appending(metric, to: "/payload/metrics")
                guard SnakeCaseName.matches(metric, maximumBytes: 40) else {
                    throw Rejection(
                        .invalid, "metric names are snake_case, got `payload.metrics.\(metric)`",
                        field: FieldError(.invalid, at: path, "is not a snake_case metric name"))
                }
                guard let number = value.numberValue, number >= 0, number <= 100 else {
                    throw Rejection(
                        FieldError(
                            value.numberValue == nil ? .wrongType : .outOfRange, at: path,
                            "must be a number from 0 to 100, got \(value.truncatedText(40))"))
                }
                metrics[metric] = .number(number)
            }
        case let other?:
            throw Rejection(Self.field("metrics", .wrongType, "must be an object of numbers, got \(other.typeName)"))
        }
        return DogProfile(
            id: dogID, userID: event.userID, name: name, birthDate: birthDate, ageRange: ageRange, breed: breed,
            timezone: timezone, metrics: metrics, registeredAt: event.occurredAt)
    }

    private func requiredText(_ payload: JSONObject, _ field: String, maximum: Int) throws(Rejection) -> String {
        guard let text = try optionalText(payload, field, maximum: maximum) else {
            throw Rejection(
                .invalid, "dog_registered needs `payload.\(field)`",
                field: Self.field(field, .missing, "is required (text of 1 to \(maximum) characters)"))
        }
        return text
    }

    private func optionalText(_ payload: JSONObject, _ field: String, maximum: Int) throws(Rejection) -> String? {
        guard let value = payload[field], value != .null else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.count <= maximum else {
            let code: FieldError.Code =
                value.stringValue == nil ? .wrongType : text(value).isEmpty ? .invalid : .tooLong
            throw Rejection(
                Self.field(
                    field, code, "must be text of 1 to \(maximum) characters, got \(value.truncatedText(40))"))
        }
        return text
    }

    private func text(_ value: JSON) -> String { value.stringValue ?? "" }

    /// The payload's member `key` at fault.
    static func field(_ key: String, _ code: FieldError.Code, _ problem: String) -> FieldError {
        FieldError(code, at: JSONPointer.appending(key, to: "/payload"), problem)
    }

    /// `4-8m`, `1-3y`, `7y+`: one or two digits, a dash and one or two digits, or a `+`;
    /// `m` or `y`. (Checked by hand: Swift regexes are parsed again at every use.)
    static func isAgeRange(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            var count = 0
            while let c = bytes.first, c >= 0x30, c <= 0x39, count < 3 {
                bytes = bytes.dropFirst()
                count += 1
            }
            return count
        }
        func unit() -> Bool {
            guard let c = bytes.first, c == UInt8(ascii: "m") || c == UInt8(ascii: "y") else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard (1...2).contains(digits()) else { return false }
        if bytes.first == UInt8(ascii: "-") {
            bytes = bytes.dropFirst()
            return (1...2).contains(digits()) && unit() && bytes.isEmpty
        }
        return unit() && bytes.first == UInt8(ascii: "+") && bytes.count == 1
    }

    /// IANA time zones, looked up once: Foundation's `TimeZone(identifier:)` reads tzdata each call.
    private static let timeZones = Set(TimeZone.knownTimeZoneIdentifiers)

    static func isTimeZone(_ identifier: String) -> Bool {
        timeZones.contains(identifier) || identifier == "UTC" || identifier == "GMT"
    }

    /// Midnight UTC of `YYYY-MM-DD`, when it is a real date.
    static func dateSeconds(_ text: String) -> Double? {
        guard text.count == 10 else { return nil }
        return Timestamp.parse(text + "T00:00:00Z")
    }
}
