/// SplitMix64: a small, fast, seeded random number generator, so that everything random replays
/// exactly from its seed (the simulator's device and user jitter, the fuzzer, randomized tests).
///
/// swift-collections' `RepeatableRandomNumberGenerator` plays the same part. The core itself
/// draws nothing; shells pass one in where they need randomness.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let delay = Int.random(in: 0..<600, using: &random)   // the same on every run with seed 42
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
