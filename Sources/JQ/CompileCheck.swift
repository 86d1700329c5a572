import CJQ
import Core

/// Confirms that many programs compile, with one libjq compile for all those that share their
/// directives instead of one compile each.
///
/// libjq 1.6 parses and binds its whole builtin library again for every compile: about 170 M
/// instructions (tens of milliseconds), whatever the program's size, so checking a rule set of
/// 50 programs one by one cost over a second. Here each program becomes the body of a function
/// of one combined program, its constants bound to null (a compile reads their names, never
/// their values), and the combined program names every function, since libjq checks only the
/// functions a program uses. Programs are grouped by their directives, so a program never sees
/// a module another one includes.
///
/// A program is left unconfirmed, for the caller to compile alone (and report its problems
/// with their lines), when:
/// - the sandbox refuses it, or libjq's lexer would (``Sandbox/prepare(_:libraryDirectory:)``);
/// - its code could reach outside its function: a `)` that closes nothing of its own;
/// - it names the functions of the combined program;
/// - a combined compile that holds it fails: the group is halved until each failing program
///   stands alone, so one broken rule costs a few compiles, not one per rule.
public enum CompileCheck {
    /// One program to check: its text and the names of the constants it is compiled with.
    public struct Candidate {
        public var source: String
        public var constantNames: [String]

        public init(source: String, constantNames: [String]) {
            self.source = source
            self.constantNames = constantNames
        }
    }

    /// The prefix of the combined program's function names; a program that names it stays alone.
    static let functionPrefix = "__journey_check_"

    /// The indices of `candidates` not confirmed to compile, in order: compile those alone.
    /// - Parameter libraryDirectory: where `import`/`include` read modules, as for ``Program``.
    public static func unconfirmed(_ candidates: [Candidate], libraryDirectory: String?) -> [Int] {
        Sandbox.disableUserLibrary()
        var left: [Int] = []
        var groups: [String: [(index: Int, head: String, function: String)]] = [:]
        var order: [String] = []
        for (index, candidate) in candidates.enumerated() {
            guard let prepared = try? Sandbox.prepare(candidate.source, libraryDirectory: libraryDirectory),
                prepared.bodyIsBalanced, !candidate.source.contains(functionPrefix),
                let groupKey = directivesKey(prepared.head)
            else {
                left.append(index)
                continue
            }
            let bindings = candidate.constantNames.sorted().map { "null as $\($0) | " }.joined()
            let function = "def \(functionPrefix)\(index): \(bindings)(\n\(prepared.body)\n);\n"
            if groups[groupKey] == nil { order.append(groupKey) }
            groups[groupKey, default: []].append((index, prepared.head, function))
        }
        for key in order {
            guard let members = groups[key] else { continue }
            left += failing(members[...], libraryDirectory: libraryDirectory)
        }
        return left.sorted()
    }

    /// The members whose combined compile fails, found by halving the group.
    private static func failing(
        _ members: ArraySlice<(index: Int, head: String, function: String)>, libraryDirectory: String?
    ) -> [Int] {
        guard let first = members.first else { return [] }
        let calls = members.map { "\(functionPrefix)\($0.index)" }.joined(separator: ", ")
        let source = first.head + "\n" + members.map(\.function).joined() + "[\(calls)] | empty"
        if compiles(source, libraryDirectory: libraryDirectory) { return [] }
        if members.count == 1 { return [first.index] }
        let middle = members.startIndex + members.count / 2
        return failing(members[..<middle], libraryDirectory: libraryDirectory)
            + failing(members[middle...], libraryDirectory: libraryDirectory)
    }

    /// The directives of a head as tokens, without comments and layout; nil when they do not lex.
    private static func directivesKey(_ head: String) -> String? {
        guard let tokens = try? JQLexer.tokenize(head) else { return nil }
        return tokens.map(\.text).joined(separator: " ")
    }

    /// Whether `source`, wrapped in the sandbox, compiles; libjq's messages are dropped.
    private static func compiles(_ source: String, libraryDirectory: String?) -> Bool {
        guard let prepared = try? Sandbox.prepare(source, libraryDirectory: libraryDirectory),
            let state = jq_init()
        else { return false }
        defer {
            var torn: OpaquePointer? = state
            jq_teardown(&torn)
        }
        jq_set_error_cb(state, dropMessage, nil)
        Program.searchLibrary(libraryDirectory, from: state)
        return prepared.wrappedSource.withCString { jq_compile_args(state, $0, jv_object()) } == 1
    }

    // libjq hands callbacks their message at +1.
    private static let dropMessage: jq_msg_cb = { _, message in jv_free(message) }
}
