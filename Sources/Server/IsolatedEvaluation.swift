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
        // The child stops itself at its budget, which is CPU time; once it has used 3 s more
        // (or, starved by a busy machine, after a minute) it is killed.
        let budget = Duration.milliseconds(job.budgetMilliseconds)
        let outcome = ChildProcess.run(
            executable: executable, arguments: ["serve", "--isolated-eval"], input: job.json,
            limits: ChildProcess.Limits(cpu: budget + .seconds(3), wall: budget + .seconds(60)))
        switch outcome {
        case .answered(let answer):
            guard let code = answer["status"]?.numberValue, let body = answer["body"] else {
                return failure("the evaluation process gave no answer")
            }
            return .json(body, status: Int(code))
        case .ended(let why):
            return .error(
                422, code: "evaluation_crashed",
                message: "the expression crashed its evaluation process (\(why)); nothing else was affected")
        case .unavailable(let why):
            return failure(why)
        }
    }

    /// The child's side: reads the job from descriptor 3, writes the answer to descriptor 4.
    public static func serveChild() -> Int32 {
        ChildProcess.serve(stuckGrace: nil) { input, _ in
            let (status, body) = evaluate(Job(json: input))
            return ["status": .number(Double(status)), "body": body]
        }
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
}
