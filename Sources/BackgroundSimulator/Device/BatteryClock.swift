import BackgroundCore

/// The battery's level over time: linear between changes of rate.
struct BatteryClock {
    private var levelAtUpdate: Double
    private var updatedAt: Instant = .zero
    private(set) var rate: Double = 0
    /// Bumped at every change, so a scheduled step that no longer applies is recognised.
    private(set) var generation: UInt64 = 0
    /// The level the scheduled step stops at.
    private(set) var target: Double?

    init(level: Double) {
        levelAtUpdate = min(max(level, 0), 1)
    }

    func level(at instant: Instant) -> Double {
        min(max(levelAtUpdate + rate * (instant - updatedAt).seconds, 0), 1)
    }

    /// Sets the level now (a step reached, or a level set by hand) and forgets the scheduled step.
    mutating func set(_ level: Double, at instant: Instant) {
        levelAtUpdate = min(max(level, 0), 1)
        updatedAt = instant
        target = nil
        generation += 1
    }

    /// Changes the rate from now on, and the step it is heading for.
    mutating func change(rate newRate: Double, target newTarget: Double?, at instant: Instant) {
        levelAtUpdate = level(at: instant)
        updatedAt = instant
        rate = newRate
        target = newTarget
        generation += 1
    }
}
