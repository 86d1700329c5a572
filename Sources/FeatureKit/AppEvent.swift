import Core

/// An event type the app sends, declared by the feature that consumes it: the catalogue a
/// product manager picks from (the console's trigger picker, `GET /v1/app-events`) and what
/// `journey check` holds flow triggers to.
public struct AppEvent: Sendable, Equatable {
    /// The event's `type` (`ui_tap`).
    public var type: String
    /// What the user did, for a PM, short enough for a picker ("taps an element").
    public var says: String
    /// What it means and carries, in a sentence.
    public var description: String
    /// The payload member a step's trigger names (`element_id`, `direction`), nil when the
    /// event is not one a step waits for.
    public var field: String?
    /// The values `field` takes, when it has a fixed set (`left`, `right`, …).
    public var choices: [String]?

    public init(
        _ type: String, says: String, _ description: String, field: String? = nil, choices: [String]? = nil
    ) {
        self.type = type
        self.says = says
        self.description = description
        self.field = field
        self.choices = choices
    }

    /// The event as the catalogue serves it, with the feature that declares it.
    public func json(feature: String) -> JSON {
        var object: JSONObject = [
            "type": .string(type), "says": .string(says), "description": .string(description),
            "feature": .string(feature), "field": field.map(JSON.string) ?? .null,
        ]
        if let choices { object["choices"] = .array(choices.map(JSON.string)) }
        return .object(object)
    }
}
