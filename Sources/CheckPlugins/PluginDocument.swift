import Core
import JQ
import RuleEngine
import YAML

/// A `plugin:` document of `Plugins/*.yaml`.
public struct PluginDeclaration: Sendable {
    public var type: String
    public var description: String?
    public var location: SourceLocation
    public var contentRule: String { "plugin.\(type).content" }
    public var answerRule: String { "plugin.\(type).answer" }
}

/// Reads `plugin:` documents: the check type, a description, and its two rules.
///
/// ```yaml
/// plugin: self_screen
/// description: Pick one of 3–4 reference images.
/// rules:
///   - rule: plugin.self_screen.content   # kind check_content
///   - rule: plugin.self_screen.answer    # kind check_answer
/// ```
public struct PluginDocumentKind: DocumentKind {
    public let key = "plugin"

    public init() {}

    public func decode(_ root: YAMLNode, in file: DocumentFile) -> DecodedDocument? {
        guard let fields = file.fields(root, what: "plugin", allowed: ["plugin", "description", "rules"]) else {
            return nil
        }
        guard let (type, typeNode) = fields.string("plugin", required: true) else { return nil }
        guard SnakeCaseName.matches(type, maximumBytes: 40) else {
            file.error("invalid_value", "a check type is snake_case, got `\(type)`", at: fields.location(typeNode))
            return nil
        }
        let declaration = PluginDeclaration(
            type: type, description: fields.string("description")?.value, location: fields.start)
        guard let list = fields.values["rules"] else {
            fields.missing("rules", "a plugin declares `\(declaration.contentRule)` and `\(declaration.answerRule)`")
            return nil
        }
        let rules = file.decodeRules(list)
        for rule in rules where ![declaration.contentRule, declaration.answerRule].contains(rule.id) {
            file.error(
                "invalid_value",
                "plugin `\(type)` declares only `\(declaration.contentRule)` and `\(declaration.answerRule)`, not `\(rule.id)`",
                at: rule.location)
        }
        for (id, kind) in [(declaration.contentRule, "check_content"), (declaration.answerRule, "check_answer")] {
            guard let rule = rules.first(where: { $0.id == id }) else {
                file.error("missing_field", "plugin `\(type)` needs a rule `\(id)` of kind \(kind)", at: fields.start)
                continue
            }
            if rule.kind.name != kind {
                file.error(
                    "invalid_value", "rule `\(id)` must be of kind \(kind), not \(rule.kind.name)", at: rule.location)
            }
        }
        return DecodedDocument(value: declaration, rules: rules)
    }

    public func check(_ documents: [LoadedDocument], in context: DocumentCheckContext) {
        var seen: [String: SourceLocation] = [:]
        for case let declaration as PluginDeclaration in documents.map(\.value) {
            if let first = seen[declaration.type] {
                context.error(
                    "duplicate_plugin", "check type `\(declaration.type)` is already declared at \(first)",
                    at: declaration.location)
            }
            seen[declaration.type] = declaration.location
        }
    }
}
