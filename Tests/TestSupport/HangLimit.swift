import Testing

extension Trait where Self == TimeLimitTrait {
    /// A time limit that only names a test that hangs. Swift Testing counts a test's time from
    /// when the test is started, and a synchronous body may first wait for one of the few threads
    /// test bodies share (in loaded runs of the suite, tests started at once ended up to 25
    /// minutes later), so a limit of minutes failed tests that did not hang. Sixty minutes is
    /// still under CI's 90.
    public static var hangLimit: Self { .timeLimit(.minutes(60)) }
}
