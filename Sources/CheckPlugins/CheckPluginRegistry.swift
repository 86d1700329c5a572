import RuleEngine

/// Every check type: the ones declared in `Plugins/*.yaml` and the ones written in Swift.
/// A declared plugin shadows a Swift one of the same type, so a check can be changed without
/// a redeploy.
public struct CheckPluginRegistry: Sendable {
    private let plugins: [String: any CheckPlugin]

    public init(ruleSet: RuleSet, swiftPlugins: [any CheckPlugin] = []) {
        var plugins: [String: any CheckPlugin] = [:]
        for plugin in swiftPlugins { plugins[plugin.type] = plugin }
        for declaration in ruleSet.documents(of: PluginDeclaration.self) {
            plugins[declaration.type] = RulePlugin(declaration: declaration)
        }
        self.plugins = plugins
    }

    /// The plugin of check type `type`.
    public func plugin(_ type: String) -> (any CheckPlugin)? {
        plugins[type]
    }

    /// The check types, sorted.
    public var types: [String] { plugins.keys.sorted() }
}
