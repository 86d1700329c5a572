import CJQ
import Core

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A jq program compiled once into its own `jq_state` and evaluated many times.
///
/// Compiling costs milliseconds with libjq 1.6; evaluating costs microseconds. Keep programs
/// and evaluate them with ``run(_:now:timeout:onOutput:)``, which hands outputs to the caller one
/// at a time and stops as soon as the caller has what it needs, so `first(...)`-style rules
/// and generators such as `repeat(1)` never run away.
///
/// Every program runs in the ``Sandbox``.
///
/// Not `Sendable`: a `jq_state` belongs to one thread at a time, like the values it reads.
public final class Program {
    /// The program text as written (without the sandbox's wrapping).
    public let source: String
    /// The name used in messages (a rule id, or `<expr>`).
    public let name: String

    private var state: OpaquePointer?
    /// Where the state goes when the program is released: the shared pool, when another program
    /// may reuse it (``CompiledStatePool``); nil to tear it down.
    private var poolKey: CompiledStatePool.Key?
    /// ``Sandbox/nowAttribute`` as a libjq string, made once per program: libjq's reference
    /// counts are not atomic, so a string shared by programs of several threads would race.
    private let nowKey = JV.makeString(Sandbox.nowAttribute)
    /// Whether the program may call `now`, so that each evaluation must set the time
    /// (``Sandbox/mayReadNow(_:)``).
    let readsNow: Bool
    private let sink = MessageSink()
    private var running = false
    /// The last budget given and it in nanoseconds: a program is run with its rule's budget
    /// every time, and taking a `Duration` apart costs more than comparing it.
    private var lastBudget: (timeout: Duration, nanoseconds: UInt64) = (.zero, 0)

    /// Compiles `source` in the sandbox.
    /// - Parameters:
    ///   - name: how messages refer to the program.
    ///   - libraryDirectory: absolute path of the only directory `import`/`include` may read.
    ///   - constants: variables bound for the program's whole life (`params` → `$params`):
    ///     libjq 1.6 inlines them as constants when it compiles, so reading one costs what a
    ///     literal costs; another value needs another program.
    /// - Throws: ``JQError`` `compile_error` or `sandbox_violation`, with every problem libjq
    ///   reported and its line in `source`.
    public init(
        _ source: String, name: String = "<expr>", libraryDirectory: String? = nil, constants: JSONObject = [:]
    ) throws(JQError) {
        self.source = source
        self.name = name
        readsNow = Sandbox.mayReadNow(source)
        Sandbox.disableUserLibrary()
        let prepared = try Sandbox.prepare(source, libraryDirectory: libraryDirectory)
        // A program that reads the library is pooled with the library's digest, taken before and
        // after the compile: a file changed in between leaves the state unpooled.
        let library = prepared.directives.isEmpty ? nil : LibraryDigest.of(libraryDirectory)
        let key: CompiledStatePool.Key? =
            prepared.directives.isEmpty || library != nil
            ? CompiledStatePool.Key(wrappedSource: prepared.wrappedSource, constants: constants, library: library)
            : nil
        if let key, let reused = CompiledStatePool.shared.take(key) {
            state = reused
            poolKey = key
            listen(reused)
            return
        }
        guard let state = jq_init() else {
            throw JQError(.compileError, "libjq could not allocate a jq_state")
        }
        self.state = state
        listen(state)
        Self.searchLibrary(libraryDirectory, from: state)
        // jq_compile_args consumes its arguments object; it returns 1 on success.
        let arguments = constants.isEmpty ? jv_object() : JV.make(.object(constants))
        let compiled = prepared.wrappedSource.withCString { jq_compile_args(state, $0, arguments) }
        let messages = sink.compileMessages
        sink.compileMessages = []
        guard compiled == 1 else {
            let problems = messages.compactMap(CompileProblem.init(libjqMessage:))
            let summary = problems.first?.message ?? "the program does not compile"
            throw JQError(.compileError, summary, problems: problems)
        }
        poolKey = library == nil || LibraryDigest.of(libraryDirectory) == library ? key : nil
    }

    /// Makes `directory` (none: no directory) the only place `import`/`include` read in `state`.
    static func searchLibrary(_ directory: String?, from state: OpaquePointer) {
        var searchPath = jv_array()
        if let directory {
            searchPath = jv_array_append(searchPath, JV.makeString(directory))
        }
        // jq_set_attr consumes the key and the value.
        jq_set_attr(state, jv_string("JQ_LIBRARY_PATH"), searchPath)
    }

    /// The key the program's state is pooled under when released; nil when it is torn down.
    var pooledKey: CompiledStatePool.Key? { poolKey }

    /// Points libjq's callbacks for `state` at this program.
    private func listen(_ state: OpaquePointer) {
        let context = Unmanaged.passUnretained(sink).toOpaque()
        jq_set_error_cb(state, Program.errorCallback, context)
        jq_set_debug_cb(state, Program.debugCallback, context)
        jq_set_input_cb(state, Program.inputCallback, nil)
    }

    deinit {
        jv_free(nowKey)
        if let poolKey, let state {
            // This program's message sink goes with it.
            jq_set_error_cb(state, nil, nil)
            jq_set_debug_cb(state, nil, nil)
            CompiledStatePool.shared.give(state, for: poolKey)
        } else {
            // jq_teardown frees the state, its bytecode and anything left on its stack.
            jq_teardown(&state)
        }
    }

    /// What one evaluation left besides its outputs.
    public struct Report {
        /// `debug` and `stderr` messages, in order.
        public var trace: [TraceEntry]
        /// How many outputs were produced before the evaluation ended or was stopped.
        public var outputCount: Int
    }

    /// Evaluates the program on `input`, handing each output to `onOutput` until it returns
    /// false or the outputs end.
    ///
    /// - Parameters:
    ///   - now: what `now` returns inside the program (seconds since 1970).
    ///   - timeout: the budget, in CPU time of the calling thread; past it the evaluation is halted
    ///     and ``JQError`` `timeout` thrown.
    /// - Throws: ``JQError`` (`runtime_error`, `halt`, `timeout`, `busy`) or what `onOutput` throws.
    @discardableResult
    public func run(
        _ input: JV, now: Double, timeout: Duration?, onOutput: (JV) throws -> Bool
    ) throws -> Report {
        guard let state else { throw JQError(.busy, "program \(name) was torn down") }
        guard !running else {
            throw JQError(.busy, "program \(name) is already running (evaluations cannot nest)")
        }
        running = true
        sink.trace.removeAll(keepingCapacity: true)
        var report = Report(trace: [], outputCount: 0)
        let ticket = timeout.map { Watchdog.shared.begin(state, budget: budgetNanoseconds($0), name: name) }
        var ticketOpen = ticket != nil
        func endTicket() -> Bool {
            guard ticketOpen, let ticket else { return false }
            ticketOpen = false
            return Watchdog.shared.end(ticket)
        }
        defer {
            _ = endTicket()
            running = false
        }

        // The sandbox's `now` reads the attribute; jq_set_attr consumes a key reference and the
        // value, jq_start the input reference.
        if readsNow { jq_set_attr(state, jv_copy(nowKey), jv_number(now)) }
        jq_start(state, input.retained(), 0)

        while true {
            let output = jq_next(state)  // +1
            if jv_get_kind(output) != JV_KIND_INVALID {
                report.outputCount += 1
                let keepGoing = try onOutput(JV(consuming: output))
                if !keepGoing { break }
                continue
            }
            let timedOut = endTicket()
            if timedOut || jq_halted(state) != 0 {
                jv_free(output)
                let budget = timeout.map { " of \(DurationText.format($0))" } ?? ""
                throw JQError(.timeout, "\(name) ran past its time budget\(budget) and was stopped")
            }
            guard jv_invalid_has_msg(jv_copy(output)) != 0 else {
                jv_free(output)  // the end of the outputs
                break
            }
            let message = jv_invalid_get_msg(output)  // consumes `output`
            defer { jv_free(message) }
            throw Program.runtimeError(message, name: name)
        }
        report.trace = sink.trace
        sink.trace = []
        return report
    }

    private func budgetNanoseconds(_ timeout: Duration) -> UInt64 {
        if timeout != lastBudget.timeout { lastBudget = (timeout, Watchdog.nanoseconds(timeout)) }
        return lastBudget.nanoseconds
    }

    /// Evaluates and collects up to `limit` outputs as ``JSON``.
    public func outputs(
        _ input: JV, now: Double, timeout: Duration?, limit: Int = .max
    ) throws -> (outputs: [JSON], trace: [TraceEntry]) {
        var outputs: [JSON] = []
        let report = try run(input, now: now, timeout: timeout) { output in
            outputs.append(try output.json())
            return outputs.count < limit
        }
        return (outputs, report.trace)
    }

    /// Builds the typed error for a runtime error value (`error(...)`, or the sandbox's halts).
    static func runtimeError(_ message: jv, name: String) -> JQError {
        let value = (try? JV.json(from: message, depth: 0)) ?? .null
        if case .array(let parts) = value, parts.count == 3, parts[0] == .string(Sandbox.haltMarker) {
            let code = Int(parts[1].numberValue ?? 5)
            if parts[1] == 0, parts[2] == .null {
                return JQError(.halt, "\(name) called halt", exitCode: 0)
            }
            let text = parts[2].stringValue ?? parts[2].truncatedText()
            return JQError(
                .halt, "\(name) called halt_error (exit code \(code)): \(text)", value: parts[2], exitCode: code)
        }
        if case .string(let text) = value {
            return JQError(.runtimeError, text, value: value)
        }
        // error({code, message}): the message reads as the error; the object stays in `value`.
        if case .object(let object) = value, case .string(let text)? = object["message"] {
            return JQError(.runtimeError, text, value: value)
        }
        return JQError(.runtimeError, "error(\(value.truncatedText()))", value: value)
    }
}

/// A `debug` or `stderr` message from an evaluation.
public struct TraceEntry: Sendable, Equatable {
    public enum Kind: String, Sendable { case debug, stderr }
    public var kind: Kind
    public var value: JSON

    public init(kind: Kind, value: JSON) {
        self.kind = kind
        self.value = value
    }
}

/// Receives libjq's callbacks for one program. Touched only by the thread running the program.
private final class MessageSink {
    var compileMessages: [String] = []
    var trace: [TraceEntry] = []

    /// Takes ownership of `message`.
    func debug(_ message: jv) {
        defer { jv_free(message) }
        guard let value = try? JV.json(from: message, depth: 0) else { return }
        if case .array(let parts) = value, parts.count == 2, parts[0] == .string(Sandbox.stderrMarker) {
            trace.append(TraceEntry(kind: .stderr, value: parts[1]))
        } else {
            trace.append(TraceEntry(kind: .debug, value: value))
        }
    }

    /// Takes ownership of `message`.
    func error(_ message: jv) {
        defer { jv_free(message) }
        if jv_get_kind(message) == JV_KIND_STRING {
            compileMessages.append(JV.swiftString(message))
        } else if let value = try? JV.json(from: message, depth: 0) {
            compileMessages.append(value.compactText)
        }
    }
}

extension Program {
    // libjq hands callbacks their message at +1.
    fileprivate static let errorCallback: jq_msg_cb = { context, message in
        Unmanaged<MessageSink>.fromOpaque(context!).takeUnretainedValue().error(message)
    }

    fileprivate static let debugCallback: jq_msg_cb = { context, message in
        Unmanaged<MessageSink>.fromOpaque(context!).takeUnretainedValue().debug(message)
    }

    /// Defense in depth: the sandbox already shadows `input`, but a library cannot reach it.
    fileprivate static let inputCallback: jq_input_cb = { _, _ in
        jv_invalid_with_msg(jv_string("input is not available to rules: a rule reads only its input (.)"))
    }
}

extension Sandbox {
    /// libjq prepends `$HOME/.jq` to every program it compiles; with HOME pointing nowhere, it
    /// finds nothing. Done once, before the first compile, for the whole process: the engine
    /// itself never reads HOME. The original value stays in `JOURNEY_ORIGINAL_HOME`.
    public static func disableUserLibrary() {
        _ = userLibraryDisabled
    }

    private static let userLibraryDisabled: Bool = {
        if let home = getenv("HOME") { setenv("JOURNEY_ORIGINAL_HOME", home, 1) }
        setenv("HOME", "/nonexistent/journey-jq-sandbox", 1)
        return true
    }()
}

extension CompileProblem {
    /// Parses libjq's `jq: error: MESSAGE at FILE, line N:\nSOURCE`; nil for its summary line.
    init?(libjqMessage raw: String) {
        var text = Substring(raw)
        if text.hasPrefix("jq: error: ") {
            text = text.dropFirst("jq: error: ".count)
        } else if text.hasPrefix("jq: "), text.contains(" compile error") {
            return nil
        }
        let firstLine = text.prefix { $0 != "\n" }
        var message = String(firstLine)
        var line: Int?
        var column: Int?
        var file: String?
        if let match = firstLine.wholeMatch(
            of: #/(?<message>.*) at (?<file>.*), line (?<line>\d+)(?:, column (?<column>\d+))?:?/#)
        {
            message = String(match.output.message)
            line = Int(match.output.line)
            column = match.output.column.flatMap { Int($0) }
            let where_ = String(match.output.file)
            file = where_ == "<top-level>" ? nil : where_
        }
        message = message.replacingOccurrences(of: " (Unix shell quoting issues?)", with: "")
        self.init(message: message.trimmingTrailingWhitespace(), line: line, column: column, file: file)
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        return self.split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

    fileprivate func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let last = s.last, last.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
