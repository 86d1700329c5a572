import FeatureKit

/// The events the app sends that onboarding consumes: the screen events a step waits for,
/// the skip of a step, and the app's opening (what `starts_on` names).
enum OnboardingEvents {
    static let declared: [AppEvent] = [
        AppEvent(
            "ui_tap", says: "taps an element",
            "The user tapped an element of the screen; `element_id` names it.", field: "element_id"),
        AppEvent(
            "ui_swipe", says: "swipes the screen",
            "The user swiped the screen; `direction` is left, right, up or down.", field: "direction",
            choices: OnboardingDocumentKind.swipeDirections),
        AppEvent(
            "ui_element_visible", says: "sees an element appear",
            "An element came into view on the screen; `element_id` names it.", field: "element_id"),
        AppEvent(
            "ui_text_changed", says: "types into a field",
            "The text of a field changed; `element_id` names the field, `text` is what it holds now.",
            field: "element_id"),
        AppEvent(
            "app_opened", says: "opens the app",
            "The app came to the foreground (a new session): what most flows start on."),
        AppEvent(
            OnboardingConsumer.skipEventType, says: "skips an onboarding step",
            "The user skipped a step of an onboarding flow; `flow` and `step` name it."),
    ]
}
