import Core
import Foundation
import JQ
import YAML

/// Loads a rules directory (and the plugins directory) into a ``RuleSet``, collecting every
/// diagnostic in one pass: YAML syntax, unknown and missing fields, duplicate ids, unknown
/// kinds, jq compile errors mapped to their line in the YAML, sandbox violations, library
/// problems, missing or malformed fixtures, and tests that can never pass.
///
/// Layout: rule files are `*.yaml`, `*.yml` and `*.json` anywhere under the directory, except
/// in `lib/` (jq modules, `*.jq`) and in folders named `fixtures/` (test inputs). Hidden files
/// and editor leftovers (`*~`, `*.swp`, `#…#`) are ignored.
public struct RuleSetLoader {
    /// The rules directory, as the user gave it (default `Rules`).
    public var rulesDirectory: String
    /// The plugins directory: its YAML documents are read like the rules', and every file in it
    /// counts toward the revision.
    public var pluginsDirectory: String?
    /// The document kinds features register (catalogs, plugins, …), besides rules.
    public var kinds: [any DocumentKind]
    /// The rule kinds rules may be written in: the engine's own and every feature's.
    public var ruleKinds: [RuleKind]
    /// How messages name the rules and plugins directories, when not as given (a service
    /// loads a snapshot copy, but its diagnostics should name `Rules/…` as edited).
    public var displayNames: (rules: String, plugins: String)?
    /// Programs kept from an earlier load on this thread: unchanged rules are not compiled again.
    /// The evaluator of such a load shares programs with the cache, so it must stay on this
    /// thread (give other threads an evaluator of their own).
    public var programCache: ProgramCache?
    /// Kept alive by the rule set loaded (and every copy of it): the owner of a temporary
    /// folder the rules were written to, which library imports are read from whenever a
    /// program is compiled, after the load too.
    public var folderOwner: (any AnyObject & Sendable)?
    /// Loads kept from before: loading the same files again skips the compile pass (see
    /// ``RuleSetMemo``). Not used with a ``programCache`` (whose programs the load must keep).
    public var memo: RuleSetMemo?

    public init(
        rulesDirectory: String = "Rules", pluginsDirectory: String? = "Plugins", kinds: [any DocumentKind] = [],
        ruleKinds: [RuleKind] = RuleKind.registry
    ) {
        self.rulesDirectory = rulesDirectory
        self.pluginsDirectory = pluginsDirectory
        self.kinds = kinds
        self.ruleKinds = ruleKinds
    }

    /// What a load produced.
    public struct Result {
        /// The rule set; nil when there were errors.
        public var ruleSet: RuleSet?
        /// Every diagnostic, sorted by place.
        public var diagnostics: [Diagnostic]
        /// An evaluator holding the programs compiled during the load, for this thread.
        public var evaluator: RuleEvaluator?
    }

    /// Loads, validates and compiles everything.
    public func load() -> Result {
        let collector = DiagnosticCollector()
        let display = displayNames?.rules ?? Self.displayPath(rulesDirectory)
        let root = Self.absolutePath(rulesDirectory)
        let library = root + "/lib"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            collector.error(
                "missing_directory", "rules directory not found (give another with --rules DIR)",
                at: SourceLocation(file: display, line: 1, column: 1))
            return Result(ruleSet: nil, diagnostics: collector.diagnostics, evaluator: nil)
        }

        var hasher = RevisionHasher()
        var libraryHasher = SHA256()
        let listing = FolderListing(root: root)
        let files = listing.files
        Self.reportInvalidNames(listing, display: display, to: collector)
        var contents: [String: String] = [:]
        for relative in files {
            guard let data = FileManager.default.contents(atPath: root + "/" + relative) else {
                collector.error(
                    "io_error", "cannot read the file",
                    at: SourceLocation(file: display + "/" + relative, line: 1, column: 1))
                continue
            }
            guard Self.isWithinSizeLimit(data, path: display + "/" + relative, collector: collector) else { continue }
            hasher.add(root: "Rules", relative: relative, data)
            if relative.hasPrefix("lib/") {
                libraryHasher.update(relative + "\u{0}")
                libraryHasher.update(data)
            }
            if let text = String(data: data, encoding: .utf8) {
                contents[relative] = text
            } else if Self.isRuleDocument(relative) || relative.hasSuffix(".jq") {
                collector.error(
                    "invalid_utf8", "the file is not valid UTF-8",
                    at: SourceLocation(file: display + "/" + relative, line: 1, column: 1))
            }
        }
        var pluginContents: [String: String] = [:]
        var pluginFiles: [String] = []
        var pluginsRoot = ""
        if let pluginsDirectory {
            pluginsRoot = Self.absolutePath(pluginsDirectory)
            let listing = FolderListing(root: pluginsRoot)
            pluginFiles = listing.files
            let pluginsDisplay = displayNames?.plugins ?? Self.displayPath(pluginsDirectory)
            Self.reportInvalidNames(listing, display: pluginsDisplay, to: collector)
            for relative in pluginFiles {
                guard let data = FileManager.default.contents(atPath: pluginsRoot + "/" + relative) else { continue }
                guard Self.isWithinSizeLimit(data, path: pluginsDisplay + "/" + relative, collector: collector) else {
                    continue
                }
                hasher.add(root: "Plugins", relative: relative, data)
                pluginContents[relative] = String(data: data, encoding: .utf8)
            }
        }

        let revision = hasher.finalize()
        var memoKey: RuleSetMemo.Key?
        if let memo, programCache == nil, !collector.hasErrors {
            let key = RuleSetMemo.Key(
                revision: revision, rulesDisplay: display,
                pluginsDisplay: pluginsDirectory.map { displayNames?.plugins ?? Self.displayPath($0) },
                invalidNames: listing.invalidNames)
            if let (ruleSet, diagnostics) = memo.find(
                key, libraryDirectory: library, folderOwner: folderOwner, loadedAt: Date().timeIntervalSince1970)
            {
                return Result(ruleSet: ruleSet, diagnostics: diagnostics, evaluator: RuleEvaluator(ruleSet: ruleSet))
            }
            memoKey = key
        }

        let sizes =
            contents.mapValues { $0.utf8.count }.map { (display + "/" + $0.key, $0.value) }
            + pluginContents.mapValues { $0.utf8.count }.map { ($0.key, $0.value) }
        let total = sizes.reduce(0) { $0 + $1.1 }
        guard total <= Self.maxRuleSetBytes else {
            let largest = sizes.sorted { $0.1 > $1.1 }.prefix(3).map { "\($0.0) (\($0.1) bytes)" }
            collector.error(
                "rule_set_too_large",
                "the rules and plugins have \(total) bytes, more than the \(Self.maxRuleSetBytes) a rule set may have; the largest: \(largest.joined(separator: ", "))",
                at: SourceLocation(file: display, line: 1, column: 1))
            return Result(ruleSet: nil, diagnostics: collector.diagnostics, evaluator: nil)
        }

        let table = RuleKinds(ruleKinds)
        let parameters = ParameterTable(collector: collector)
        if let values = contents[ParameterTable.valuesFile] {
            parameters.readValues(values, file: display + "/" + ParameterTable.valuesFile)
        }
        let context = LoadContext(
            root: root, display: display, library: library, contents: contents, collector: collector, kinds: kinds,
            ruleKinds: table, parameters: parameters)
        context.checkLibraries(files.filter { $0.hasPrefix("lib/") && $0.hasSuffix(".jq") })
        var rules: [RuleDefinition] = []
        var documents: [LoadedDocument] = []
        for relative in files where Self.isRuleDocument(relative) && relative != ParameterTable.valuesFile {
            let decoded = context.decodeFile(relative)
            rules += decoded.rules
            documents += decoded.documents
        }
        if let pluginsDirectory {
            let plugins = LoadContext(
                root: pluginsRoot, display: displayNames?.plugins ?? Self.displayPath(pluginsDirectory),
                library: library,
                contents: pluginContents, collector: collector, kinds: kinds, ruleKinds: table,
                parameters: parameters)
            for relative in pluginFiles where Self.isRuleDocument(relative) {
                let decoded = plugins.decodeFile(relative)
                rules += decoded.rules
                documents += decoded.documents
            }
        }
        let declared = parameters.finish()
        let unique = context.rejectDuplicates(rules)
        // Duplicates are compiled too (and dropped) so that their own problems show in this pass.
        let duplicates = rules.filter { rule in !unique.contains { $0.location == rule.location } }
        _ = context.compile(duplicates)
        rules = unique
        context.checkExpectationsAgainstInputs(rules)
        let libraryHash = libraryHasher.finalizeHex()
        let digests = Dictionary(
            rules.map { ($0.id, $0.digest(libraryHash: libraryHash)) }, uniquingKeysWith: { first, _ in first })
        let programs = context.compile(rules, cache: programCache, digests: digests)

        let ruleSet = RuleSet(
            rules: rules, revision: revision, rulesDirectory: display, libraryDirectory: library,
            files: files.map { display + "/" + $0 }, loadedAt: Date().timeIntervalSince1970, documents: documents,
            digests: digests, parameters: declared, folderOwner: folderOwner)
        let evaluator = RuleEvaluator(ruleSet: ruleSet, programs: programs)
        // Document kinds check their documents against the compiled rules, whatever else is
        // wrong: every problem is told at once (a wording error must not wait for a structural
        // one to be fixed first).
        let checkContext = DocumentCheckContext(ruleSet: ruleSet, evaluator: evaluator, collector: collector)
        for kind in kinds {
            kind.check(documents.filter { $0.key == kind.key }, in: checkContext)
        }

        let diagnostics = collector.diagnostics.sortedByLocation()
        guard !diagnostics.hasErrors else {
            return Result(ruleSet: nil, diagnostics: diagnostics, evaluator: nil)
        }
        if let memo, let memoKey { memo.keep(memoKey, ruleSet: ruleSet, diagnostics: diagnostics) }
        return Result(ruleSet: ruleSet, diagnostics: diagnostics, evaluator: evaluator)
    }

    /// Whether `relative` (a path inside the rules directory) is read as a rule document.
    static func isRuleDocument(_ relative: String) -> Bool {
        let components = relative.split(separator: "/")
        guard components.first != "lib", !components.dropLast().contains("fixtures") else { return false }
        return relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") || relative.hasSuffix(".json")
    }

    /// Regular files under `root`, relative and sorted; hidden files and editor leftovers skipped
    /// (see ``FolderListing``, which also names the files whose name is not UTF-8).
    public static func listFiles(in root: String) -> [String] {
        FolderListing(root: root).files
    }

    /// The most bytes a file of a rules or plugins folder may have.
    public static let maxFileBytes = 1 << 20
    /// The most bytes the rules and plugins may have together.
    public static let maxRuleSetBytes = 16 << 20

    /// An error for each file of `listing` whose name is not UTF-8 (it is not read).
    static func reportInvalidNames(_ listing: FolderListing, display: String, to collector: DiagnosticCollector) {
        for name in listing.invalidNames {
            collector.error(
                "invalid_file_name", "the file name is not valid UTF-8 (rename it): it is not read",
                at: SourceLocation(file: display + "/" + name, line: 1, column: 1))
        }
    }

    /// Whether `data` is within ``maxFileBytes``; an error naming `path` when it is not.
    static func isWithinSizeLimit(_ data: Data, path: String, collector: DiagnosticCollector) -> Bool {
        guard data.count > maxFileBytes else { return true }
        collector.error(
            "file_too_large",
            "the file has \(data.count) bytes, more than the \(maxFileBytes) a rules or plugins file may have: it is not read",
            at: SourceLocation(file: path, line: 1, column: 1))
        return false
    }

    /// `./Rules/` → `Rules`, as paths in messages start.
    public static func displayPath(_ path: String) -> String {
        var path = path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        while path.hasPrefix("./"), path.count > 2 { path.removeFirst(2) }
        return path
    }

    /// `path` made absolute against the working directory, with `.` and `..` resolved.
    public static func absolutePath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }
}
