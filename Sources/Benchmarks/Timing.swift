/// Microseconds per call of `body`, over `iterations` calls one after another.
func microsecondsPerCall(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<iterations { try body() }
    let (seconds, attoseconds) = (clock.now - start).components
    return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(iterations)
}
