import Core
import Foundation
import JQ
import YAML

/// The state of one load: file contents, fixture cache and the diagnostics collected so far.
final class LoadContext {
    let root: String
    let display: String
    let library: String
    let contents: [String: String]
    let collector: DiagnosticCollector
    let kinds: [any DocumentKind]
    let ruleKinds: RuleKinds
    let parameters: ParameterTable
    private var fixtures: [String: JSON?] = [:]

    init(
        root: String, display: String, library: String, contents: [String: String], collector: DiagnosticCollector,
        kinds: [any DocumentKind], ruleKinds: RuleKinds, parameters: ParameterTable
    ) {
        self.parameters = parameters
        self.root = root
        self.display = display
        self.library = library
        self.contents = contents
        self.collector = collector
        self.kinds = kinds
        self.ruleKinds = ruleKinds
    }

    // MARK: Rule files

    /// Parses one file and decodes it: rules, or a document of a registered kind.
    func decodeFile(_ relative: String) -> (rules: [RuleDefinition], documents: [LoadedDocument]) {
        guard let text = contents[relative] else { return ([], []) }
        let file = display + "/" + relative
        let documents: [YAMLNode]
        do {
            documents = try YAMLParser.parse(text)
        } catch {
            collector.error("yaml_syntax", error.message, at: SourceLocation(file: file, error.mark))
            return ([], [])
        }
        guard let root = documents.first else {
            collector.warning(
                "empty_file", "the file holds nothing", at: SourceLocation(file: file, line: 1, column: 1))
            return ([], [])
        }
        if documents.count > 1 {
            collector.error(
                "multiple_documents", "a file holds one YAML document; put several rules under `rules:`",
                at: SourceLocation(file: file, documents[1].start))
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if let kind = kinds.first(where: { root[$0.key] != nil }) {
            // A document's parameters: declared at its top, read by its fields and its rules.
            let scope = parameters.scope(
                root["params"], owner: root[kind.key]?.scalar?.value ?? kind.key, file: file)
            let documentFile = DocumentFile(
                path: file, lines: lines, collector: collector, readFixture: readFixture, ruleKinds: ruleKinds,
                parameterScope: scope)
            guard let decoded = kind.decode(scope.substitute(root.removing("params")), in: documentFile) else {
                return ([], [])
            }
            let loaded = LoadedDocument(
                key: kind.key, location: SourceLocation(file: file, root.start), value: decoded.value)
            var rules = decoded.rules
            for index in rules.indices where rules[index].parameters == nil {
                scope.noteReads(of: rules[index])
                rules[index].parameters = scope.jqValues
            }
            return (rules, [loaded])
        }
        let decoder = RuleFileDecoder(
            file: file, lines: lines, collector: collector, readFixture: readFixture,
            kinds: ruleKinds, otherKeys: kinds.map(\.key), parameters: parameters)
        return (decoder.decodeDocument(root), [])
    }

    /// Keeps the first rule of each id; every later one is an error naming both places.
    func rejectDuplicates(_ rules: [RuleDefinition]) -> [RuleDefinition] {
        var first: [String: RuleDefinition] = [:]
        var kept: [RuleDefinition] = []
        for rule in rules {
            if let original = first[rule.id] {
                collector.error(
                    "duplicate_rule", "rule id `\(rule.id)` is already defined at \(original.location)",
                    at: rule.location, rule: rule.id,
                    notes: [.init("`\(rule.id)` is first defined here", at: original.location)])
                continue
            }
            first[rule.id] = rule
            kept.append(rule)
        }
        return kept
    }

    // MARK: Compiling

    /// Checks that every variant and fallback of `rules` compiles; compile problems become
    /// diagnostics at their line. With a `cache`, compiles each program now, taking unchanged
    /// ones from it (rules keyed by `digests`), and returns them. Without one, confirms the
    /// programs together (``CompileCheck``: one libjq compile instead of one per program) and
    /// returns only those it had to compile alone; an evaluator compiles the others when first
    /// used.
    func compile(
        _ rules: [RuleDefinition], cache: ProgramCache? = nil, digests: [String: String] = [:]
    ) -> [ProgramKey: Program] {
        var programs: [ProgramKey: Program] = [:]
        var used: [String: Program] = [:]
        var reused = 0
        var pending:
            [(
                key: ProgramKey, rule: RuleDefinition, expression: Expression, cacheKey: String?,
                program: (source: String, constants: JSONObject)
            )] = []
        for rule in rules {
            var expressions = rule.variants.map { (ProgramKey(rule: rule.id, variant: $0.name), $0.expression) }
            if let fallback = rule.fallback { expressions.append((ProgramKey(rule: rule.id, variant: nil), fallback)) }
            for (key, expression) in expressions {
                let cacheKey = digests[rule.id].map { ProgramCache.key(digest: $0, variant: key.variant) }
                if let cacheKey, let cached = cache?.program(cacheKey) {
                    programs[key] = cached
                    used[cacheKey] = cached
                    reused += 1
                    continue
                }
                pending.append((key, rule, expression, cacheKey, rule.program(for: expression.source)))
            }
        }
        let alone: [Int]
        if cache == nil {
            let candidates = pending.map {
                CompileCheck.Candidate(source: $0.program.source, constantNames: Array($0.program.constants.keys))
            }
            alone = CompileCheck.unconfirmed(candidates, libraryDirectory: library)
        } else {
            alone = Array(pending.indices)
        }
        for index in alone {
            let job = pending[index]
            do {
                let program = try Program(
                    job.program.source, name: job.rule.id, libraryDirectory: library, constants: job.program.constants)
                programs[job.key] = program
                if let cacheKey = job.cacheKey { used[cacheKey] = program }
            } catch {
                report(error, in: job.expression, rule: job.rule.id)
            }
        }
        if let cache, !collector.hasErrors { cache.keep(used, reused: reused) }
        return programs
    }

    private func report(_ error: JQError, in expression: Expression, rule: String) {
        let code = error.code == .sandboxViolation ? "sandbox_violation" : "jq_compile"
        let problems = error.problems.isEmpty ? [CompileProblem(message: error.message)] : error.problems
        for problem in problems {
            let message = displayMessage(problem.message)
            if let file = problem.file {
                collector.error(code, message, at: libraryLocation(file, line: problem.line), rule: rule)
            } else {
                var location = expression.location(line: problem.line, column: problem.column)
                if problem.column == nil { location = pointAtName(in: problem.message, near: location) }
                collector.error(code, message, at: location, rule: rule)
            }
        }
    }

    /// libjq 1.6 gives no columns; for `name/N is not defined`, point at `name` on its line.
    private func pointAtName(in message: String, near location: SourceLocation) -> SourceLocation {
        guard let match = message.wholeMatch(of: #/([A-Za-z_][A-Za-z_0-9:]*)/\d+ is not defined/#),
            location.file.hasPrefix(display + "/"),
            let text = contents[String(location.file.dropFirst(display.count + 1))]
        else { return location }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard location.line >= 1, location.line <= lines.count else { return location }
        let line = Array(lines[location.line - 1])
        let name = Array(String(match.output.1))
        var column = max(location.column - 1, 0)
        while column + name.count <= line.count {
            let before = column > 0 ? line[column - 1] : " "
            let after = column + name.count < line.count ? line[column + name.count] : " "
            if Array(line[column..<(column + name.count)]) == name, !isNameCharacter(before), !isNameCharacter(after) {
                return SourceLocation(file: location.file, line: location.line, column: column + 1)
            }
            column += 1
        }
        return location
    }

    private func isNameCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_" || c == "$" || c == "."
    }

    /// Messages name library files by their display path, not the absolute one.
    private func displayMessage(_ message: String) -> String {
        message.replacingOccurrences(of: library, with: display + "/lib")
    }

    private func libraryLocation(_ absolute: String, line: Int?) -> SourceLocation {
        let relative = absolute.hasPrefix(root + "/") ? String(absolute.dropFirst(root.count + 1)) : absolute
        let file = absolute.hasPrefix(root + "/") ? display + "/" + relative : absolute
        guard let line else { return SourceLocation(file: file, line: 1, column: 1) }
        let lines = contents[relative]?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
        let indent = line <= lines.count ? lines[line - 1].prefix { $0 == " " || $0 == "\t" }.count : 0
        return SourceLocation(file: file, line: line, column: indent + 1)
    }

    // MARK: Libraries

    /// Checks each library file: sandbox rules, module names, and that every top-level
    /// function compiles (libjq only checks the functions a program uses).
    func checkLibraries(_ relatives: [String]) {
        for relative in relatives {
            guard let text = contents[relative] else { continue }
            let file = display + "/" + relative
            let module = String(relative.dropFirst("lib/".count).dropLast(".jq".count))
            let (definitions, problems) = Sandbox.inspectLibrary(text, libraryDirectory: library)
            for problem in problems {
                collector.error(
                    "sandbox_violation", displayMessage(problem.message),
                    at: SourceLocation(file: file, line: problem.line ?? 1, column: problem.column ?? 1))
            }
            guard problems.isEmpty else { continue }
            if Sandbox.checkModulePath(module, isData: false, libraryDirectory: library) != nil {
                collector.error(
                    "invalid_value",
                    "library file name `\(module)` cannot be imported: use letters, digits, `_` and `-`",
                    at: SourceLocation(file: file, line: 1, column: 1))
                continue
            }
            let references: [String] = definitions.map { definition in
                guard definition.arity > 0 else { return definition.name }
                let arguments = Array(repeating: ".", count: definition.arity).joined(separator: "; ")
                return "\(definition.name)(\(arguments))"
            }
            let probe = "include \"\(module)\"; [\(references.joined(separator: ", "))]"
            do {
                _ = try Program(probe, name: "lib/\(module)", libraryDirectory: library)
            } catch {
                for problem in error.problems {
                    guard let problemFile = problem.file else { continue }
                    collector.error(
                        "jq_compile", displayMessage(problem.message),
                        at: libraryLocation(problemFile, line: problem.line))
                }
                if !error.problems.contains(where: { $0.file != nil }) {
                    collector.error(
                        "jq_compile", displayMessage(error.message), at: SourceLocation(file: file, line: 1, column: 1))
                }
            }
        }
    }

    // MARK: Fixtures

    /// Reads a test's `input_file`, relative to the folder of `ruleFile`, once per load.
    func readFixture(_ path: String, ruleFile: String, at location: SourceLocation) -> JSON? {
        let ruleRelative = String(ruleFile.dropFirst(display.count + 1))
        let folder = (ruleRelative as NSString).deletingLastPathComponent
        let absolute = ((root + "/" + folder + "/" + path) as NSString).standardizingPath
        guard absolute.hasPrefix(root + "/"), !path.hasPrefix("/") else {
            collector.error(
                "invalid_value", "input_file `\(path)` must name a file inside the rules directory", at: location)
            return nil
        }
        let relative = String(absolute.dropFirst(root.count + 1))
        let shown = display + "/" + relative
        if let cached = fixtures[relative] {
            if cached == nil {
                collector.error("invalid_fixture", "input_file \(shown) could not be read (see above)", at: location)
            }
            return cached
        }
        guard let text = contents[relative] else {
            let exists = FileManager.default.fileExists(atPath: absolute)
            collector.error(
                exists ? "invalid_fixture" : "missing_file",
                exists ? "input_file \(shown) is not UTF-8 text" : "input_file \(shown) does not exist", at: location)
            fixtures[relative] = .some(nil)
            return nil
        }
        do {
            let value = try JV.parse(text).json()
            fixtures[relative] = value
            return value
        } catch {
            collector.error(
                "invalid_fixture", "input_file \(shown): \(error.message)",
                at: fixtureLocation(error.message, file: shown) ?? location)
            fixtures[relative] = .some(nil)
            return nil
        }
    }

    /// libjq's parse errors end in `at line N, column M`: point into the fixture itself.
    private func fixtureLocation(_ message: String, file: String) -> SourceLocation? {
        guard let match = message.firstMatch(of: #/at line (\d+), column (\d+)/#),
            let line = Int(match.output.1), let column = Int(match.output.2)
        else { return nil }
        return SourceLocation(file: file, line: line, column: max(column, 1))
    }
}

/// A compiled program's place in an evaluator: a rule's variant, or its fallback (`variant` nil).
struct ProgramKey: Hashable {
    var rule: String
    var variant: String?
}
