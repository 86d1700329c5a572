import Foundation

/// The package's folders, found from where this file stands (`Tests/TestSupport/`).
public enum Repository {
    /// The package's root folder, the one with `Package.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// `Rules/`: the bundled rules.
    public static let rules = root + "/Rules"

    /// `Plugins/`: the bundled check plugins.
    public static let plugins = root + "/Plugins"

    /// `examples/`: the sample event files.
    public static let examples = root + "/examples"

    /// The `Cases/` folder of the test target that `filePath` (pass `#filePath`) belongs to:
    /// `Tests/<Target>/Cases`, whatever folder of the target the file is in.
    public static func cases(of filePath: String) -> String {
        let tests = root + "/Tests/"
        guard filePath.hasPrefix(tests), let target = filePath.dropFirst(tests.count).split(separator: "/").first
        else {
            return URL(fileURLWithPath: filePath).deletingLastPathComponent().path + "/Cases"
        }
        return tests + target + "/Cases"
    }
}
