import FeatureKit
import RuleEngine

/// Check plugins: the YAML (jq) plugins of `Plugins/` that read a journey block's check and
/// turn answers into dated records.
public struct CheckPluginsFeature: Feature {
    public init() {}

    public var name: String { "check plugins" }
    public var ruleKinds: [RuleKind] { [.checkContent, .checkAnswer] }
    public var documentKinds: [any DocumentKind] { [PluginDocumentKind()] }
}
