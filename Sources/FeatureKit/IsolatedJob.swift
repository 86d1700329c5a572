import Core

/// Work a feature's route runs in a short-lived child process of the service instead of the
/// worker answering it: what may crash libjq or allocate without bound (a candidate revision's
/// tests), so that a crash, a runaway allocation or an evaluation that cannot be stopped costs
/// that work only, never the worker and the other requests it serves.
///
/// The child is this executable (`journey serve --isolated-job NAME`) with the same features:
/// it gets the input, may report progress (each message reaches the route as it is sent, so
/// that the route can say what was running when the child died), and answers.
public struct IsolatedJob: Sendable {
    /// How the child is asked for it (`revision-gates`).
    public var name: String
    /// Runs in the child: the route's input, the engine's features, a way to report progress.
    public var run: Run
    public typealias Run = @Sendable (_ input: JSON, _ engine: FeatureSet, _ report: (JSON) -> Void) -> JSON

    public init(name: String, run: @escaping Run) {
        self.name = name
        self.run = run
    }
}

/// How an isolated job ended.
public enum IsolatedOutcome: Sendable {
    /// The child answered.
    case answered(JSON)
    /// The child ended without answering (crashed, or killed past its time): why, in words
    /// (`libjq aborted (SIGABRT)`).
    case ended(String)
    /// No child could be started (no process or pipe to be had): why. Worth trying again.
    case unavailable(String)
}
