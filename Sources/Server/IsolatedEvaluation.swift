import CSupport
import Core
import Foundation
import HTTP
import JQ
import RuleEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Evaluates an ad-hoc jq expression in a short-lived child process (`journey serve
/// --isolated-eval`), so that a libjq abort or crash ends that process only; the worker answers
/// `422 evaluation_crashed`. The request goes to the child on descriptor 3, its answer comes
/// back on descriptor 4, both as JSON.
public enum IsolatedEvaluation {
    /// What to evaluate.
    public struct Job: Sendable {
        public var expression: String
        public var input: JSON
        public var now: Double
        public var budgetMilliseconds: Int
        public var limit: Int
        public var libraryDirectory: String

        var json: JSON {
            [
                "expr": .string(expression), "input": input, "now": .number(now),
                "timeout_ms": .number(Double(budgetMilliseconds)), "limit": .number(Double(limit)),
                "library": .string(libraryDirectory),
            ]
        }

        init(json: JSON) {
            expression = json["expr"]?.stringValue ?? ""
            input = json["input"] ?? .null
            now = json["now"]?.numberValue ?? 0
            budgetMilliseconds = Int(json["timeout_ms"]?.numberValue ?? 1000)
            limit = Int(json["limit"]?.numberValue ?? 100)
            libraryDirectory = json["library"]?.stringValue ?? ""
        }

        public init(
            expression: String, input: JSON, now: Double, budgetMilliseconds: Int, limit: Int, libraryDirectory: String
        ) {
            self.expression = expression
            self.input = input
            self.now = now
            self.budgetMilliseconds = budgetMilliseconds
            self.limit = limit
            self.libraryDirectory = libraryDirectory
        }
    }

    /// Runs `job` in a child process of `executable`; the HTTP response to give.
    public static func run(_ job: Job, executable: String) -> HTTPResponse {
        var requestPipe: [Int32] = [0, 0]
        var responsePipe: [Int32] = [0, 0]
        guard journey_pipe(&requestPipe) == 0 else { return failure("cannot make a pipe") }
        guard journey_pipe(&responsePipe) == 0 else {
            close(requestPipe[0])
            close(requestPipe[1])
            return failure("cannot make a pipe")
        }
        let arguments = [executable, "serve", "--isolated-eval"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let descriptors = [requestPipe[0], responsePipe[1]]
        let error = journey_spawn(executable, argv, envp, descriptors, 2, &pid)
        close(requestPipe[0])
        close(responsePipe[1])
        guard error == 0 else {
            close(requestPipe[1])
            close(responsePipe[0])
            return failure("cannot start the evaluation process: \(String(cString: strerror(error)))")
        }
        var request: [UInt8] = []
        job.json.appendCompactText(to: &request)
        writeAll(request, to: requestPipe[1])
        close(requestPipe[1])

        // The child stops itself at its budget, which is CPU time; once it has used 3 s more
        // (or, starved by a busy machine, after a minute) it is killed.
        let started = ContinuousClock.now
        var deadline = started + .milliseconds(job.budgetMilliseconds) + .seconds(3)
        let lastResort = started + .milliseconds(job.budgetMilliseconds) + .seconds(60)
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var killed = false
        while true {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero {
                if ContinuousClock.now < lastResort, let used = cpuSeconds(of: pid),
                    used < Double(job.budgetMilliseconds) / 1000 + 3
                {
                    deadline = ContinuousClock.now + .seconds(1)
                    continue
                }
                kill(pid, SIGKILL)
                killed = true
                break
            }
            var descriptor = pollfd(fd: responsePipe[0], events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 1000))
            if poll(&descriptor, 1, milliseconds) <= 0 { continue }
            let count = chunk.withUnsafeMutableBytes { read(responsePipe[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            answer += chunk[0..<count]
            if answer.count > 16 << 20 {
                kill(pid, SIGKILL)
                break
            }
        }
        close(responsePipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}

        if journey_wait_signaled(status) || killed {
            let signal =
                killed
                ? "it ran past its budget and was killed"
                : "libjq \(SignalReader.describeCrash(journey_wait_signal(status)))"
            return .error(
                422, code: "evaluation_crashed",
                message: "the expression crashed its evaluation process (\(signal)); nothing else was affected")
        }
        guard let parsed = try? JSONParser().parse(answer), let code = parsed["status"]?.numberValue,
            let body = parsed["body"]
        else { return failure("the evaluation process gave no answer") }
        return .json(body, status: Int(code))
    }

    /// The CPU time process `pid` has used, in seconds (user and system); nil when it cannot be
    /// read (the process is gone).
    static func cpuSeconds(of pid: pid_t) -> Double? {
        var clock = clockid_t()
        guard clock_getcpuclockid(pid, &clock) == 0 else { return nil }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The child's side: reads the job from descriptor 3, writes the answer to descriptor 4.
    public static func serveChild() -> Int32 {
        var request: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(3, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            request += chunk[0..<count]
        }
        let job = Job(json: (try? JSONParser().parse(request)) ?? .null)
        let (status, body) = evaluate(job)
        var answer: [UInt8] = []
        JSON.object(["status": .number(Double(status)), "body": body]).appendCompactText(to: &answer)
        writeAll(answer, to: 4)
        return 0
    }

    /// Evaluates in this process: (status, body).
    static func evaluate(_ job: Job) -> (Int, JSON) {
        func refusal(_ code: String, _ message: String, _ errors: [JSON] = []) -> (Int, JSON) {
            (422, ["code": .string(code), "message": .string(message), "errors": .array(errors)])
        }
        let program: Program
        do {
            program = try Program(job.expression, name: "eval", libraryDirectory: job.libraryDirectory)
        } catch {
            let problems: [JSON] = error.problems.map { problem in
                [
                    "message": .string(problem.message), "line": problem.line.map { .number(Double($0)) } ?? .null,
                    "column": problem.column.map { .number(Double($0)) } ?? .null,
                ]
            }
            return refusal(error.code.rawValue, error.message, problems)
        }
        let started = ContinuousClock.now
        do {
            let (outputs, trace) = try program.outputs(
                JV(job.input), now: job.now, timeout: .milliseconds(job.budgetMilliseconds), limit: job.limit + 1)
            return (
                200,
                [
                    "outputs": .array(Array(outputs.prefix(job.limit))), "truncated": .bool(outputs.count > job.limit),
                    "trace": .array(trace.map { ["kind": .string($0.kind.rawValue), "value": $0.value] }),
                    "duration_ms": .number(Double(TestOutcome.milliseconds(ContinuousClock.now - started)) ?? 0),
                ]
            )
        } catch let failure as JQError {
            return refusal(failure.code.rawValue, failure.message, failure.value.map { [["value": $0]] } ?? [])
        } catch {
            return refusal("runtime_error", "\(error)")
        }
    }

    private static func failure(_ message: String) -> HTTPResponse {
        .error(503, code: "evaluation_unavailable", message: message, headers: [("Retry-After", "1")])
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
