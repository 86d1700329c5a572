import FeatureKit
import Locales
import RuleEngine

/// A text of a flow: a key of `Rules/locales` (`key:`), rendered in the locale of the request,
/// or written in place (`text:`, not localized: for drafts and tests).
public enum FlowText: Sendable, Equatable {
    case written(String)
    case key(String, at: SourceLocation)

    /// The text in `texts`' locale (a written text as it is).
    public func rendered(_ texts: RequestTexts) -> String {
        switch self {
        case .written(let text): text
        case .key(let key, _): texts(key)
        }
    }

    /// The key, when the text is one.
    public var key: String? {
        if case .key(let key, _) = self { return key }
        return nil
    }
}

/// `journey check`: every text key a flow names is a key of the default locale.
enum FlowTextChecks {
    static func run(_ flows: [OnboardingFlow], in context: DocumentCheckContext) {
        let catalog = context.ruleSet.texts
        let known = catalog.locales.first?.texts ?? [:]
        for flow in flows {
            var texts = [flow.title].compactMap { $0 }
            for step in flow.variants.flatMap(\.steps) { texts += [step.tooltip] + step.texts.map(\.text) }
            for case .key(let key, let location) in texts where known[key] == nil {
                var message =
                    "`\(key)` is not a text key of the \(catalog.defaultLocale) locale file (Rules/locales/\(catalog.defaultLocale).yaml)"
                if let suggestion = closestMatch(to: key, in: Array(known.keys)) {
                    message += "; did you mean `\(suggestion)`?"
                }
                context.error("unknown_text_key", message, at: location)
            }
        }
    }
}
