public import BackgroundCore

/// The seeded generator the tests use: the core's, so that a test's seed and the simulator's
/// mean the same sequence.
public typealias SplitMix64 = BackgroundCore.SplitMix64
