/// A seeded 64-bit linear congruential generator (Knuth's MMIX constants) whose numbers are
/// its whole state. Weaker than ``SplitMix64``; kept because the engine's shuffle tests were
/// written against its exact sequence.
public struct LinearCongruentialGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state, which is also the last number drawn.
    public var state: UInt64

    /// A generator that starts at `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next number: `state × 6364136223846793005 + 1442695040888963407`, wrapping.
    public mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}
