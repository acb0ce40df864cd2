/// When the user opened an app: the input of the usage predictor.
///
/// **Ours**, a deliberately simple predictor standing in for Apple's on-device engine (S16
/// factor 3): a user who opened the app at some time of day is predicted to open it at the same
/// time on the following days. A refresh may run in the hour before such a predicted use.
/// While fewer than `predictionMinimumLaunches` launches are known, any time counts, provided
/// the app was used within the processing horizon.
public struct UsageHistory: Sendable, Hashable, Codable {
    /// Foreground launches, oldest first, at most `usageHistoryLimit`.
    public private(set) var launches: [Instant] = []

    /// Creates an empty history.
    public init() {}

    /// Creates a history from stored launches (oldest first).
    public init(launches: [Instant]) {
        self.launches = launches.sorted()
    }

    /// Records a foreground launch, dropping the oldest beyond `limit`.
    public mutating func recordLaunch(at instant: Instant, limit: Int) {
        launches.append(instant)
        if launches.count > limit { launches.removeFirst(launches.count - limit) }
    }

    /// The latest launch, if any.
    public var lastLaunch: Instant? { launches.last }

    /// Whether the app was opened within `horizon` before `now`.
    public func wasUsed(within horizon: Duration, before now: Instant) -> Bool {
        guard let last = lastLaunch else { return false }
        return now - last <= horizon
    }

    /// The launches within `horizon` before `now`.
    func recentLaunches(within horizon: Duration, before now: Instant) -> ArraySlice<Instant> {
        let start = now - horizon
        // Launches are in order: the first at or after `start` is found by bisection.
        var low = launches.startIndex
        var high = launches.endIndex
        while low < high {
            let middle = (low + high) / 2
            if launches[middle] < start { low = middle + 1 } else { high = middle }
        }
        return launches[low...]
    }

    /// The start of the refresh window the app is in at `now`, or the next one.
    ///
    /// - Returns: `now` when a refresh may run now, a later instant when it must wait for the
    ///   next window, or `nil` when the app has no recent use at all.
    func refreshWindow(at now: Instant, policy: SchedulingPolicy) -> Instant? {
        let recent = recentLaunches(within: policy.usageHistoryHorizon, before: now)
        if recent.count < policy.predictionMinimumLaunches {
            return wasUsed(within: policy.processingUsageHorizon, before: now) ? now : nil
        }
        var best: Instant?
        for launch in recent {
            // The first predicted use (same time of day, a later day) whose window has not closed.
            let predicted = launch + Self.day * Self.daysToFirstUse(after: launch, atOrAfter: now)
            let windowStart = max(now, predicted - policy.refreshWindowBeforePredictedUse)
            if best == nil || windowStart < best! {
                best = windowStart
                if windowStart == now { break }  // nothing starts earlier than now
            }
        }
        return best
    }

    private static let day = Duration.seconds(86_400)

    /// The fewest whole days (at least one) after `launch` at which its time of day comes again
    /// at or after `now`: whole-second arithmetic, no floating-point division.
    static func daysToFirstUse(after launch: Instant, atOrAfter now: Instant) -> Int {
        let (seconds, attoseconds) = (now - launch).components  // same sign, |attoseconds| < 1 s
        guard seconds > 0 || attoseconds > 0 else { return 1 }
        let whole = Int(seconds / 86_400)
        let partOfADay = seconds % 86_400 > 0 || attoseconds > 0
        return max(1, partOfADay ? whole + 1 : whole)
    }
}

/// An app's background budget: a token bucket of run time, refilled evenly through the day.
///
/// **Ours**: Apple describes energy and data budgets "distributed throughout the day" (S16
/// factor 6) without numbers; run time stands in for both.
public struct RuntimeBudget: Sendable, Hashable, Codable {
    /// Run time available at ``updatedAt``.
    public private(set) var available: Duration
    /// When ``available`` was computed.
    public private(set) var updatedAt: Instant

    /// Creates a full budget.
    public init(capacity: Duration, at now: Instant) {
        self.available = capacity
        self.updatedAt = now
    }

    /// Creates a budget from stored values.
    public init(available: Duration, updatedAt: Instant) {
        self.available = available
        self.updatedAt = updatedAt
    }

    /// The run time available at `now`.
    public func available(at now: Instant, capacity: Duration) -> Duration {
        let refill = capacity * ((now - updatedAt) / .seconds(86_400))
        return min(capacity, available + max(.zero, refill))
    }

    /// Spends `cost` at `now` (the budget may go negative for a run that overran it).
    public mutating func spend(_ cost: Duration, at now: Instant, capacity: Duration) {
        available = available(at: now, capacity: capacity) - cost
        updatedAt = now
    }

    /// When at least `needed` will be available, given no further spending.
    ///
    /// A whole millisecond at which the budget, computed again, really holds `needed`: the
    /// refill is computed in floating point, and an explanation's earliest time must never be
    /// later than the run it announces (a difference of 10⁻¹² s found by the simulator's fuzzer).
    public func availableAgain(_ needed: Duration, after now: Instant, capacity: Duration) -> Instant {
        let current = available(at: now, capacity: capacity)
        guard current < needed else { return now }
        // The budget refills up to its capacity only: more than that never comes.
        guard needed <= capacity else { return .distantFuture }
        // A budget computed later than `now` (restored from a store written while the wall clock
        // was ahead) refills only from then on; counting from `now` made the search below step
        // a millisecond at a time up to that moment, years of steps (issue 25: a stall the
        // stored-rows fuzz target found).
        let start = max(now, updatedAt)
        // A budget restored from a store is untrusted: one so far below zero (or a capacity of
        // zero) that it refills in no conceivable time is "never", not a trap below.
        let days = (needed - available(at: start, capacity: capacity)) / capacity
        guard days.isFinite, days < 1e6 else { return .distantFuture }
        let exact = (start + .seconds(86_400) * days).offset
        var candidate = Instant(offset: .milliseconds(Int64((exact / .milliseconds(1)).rounded())))
        // The refill is computed in floating point: a few steps at most; bounded, so that no
        // value can make it spin.
        for _ in 0..<Self.maximumRoundingSteps {
            if available(at: candidate, capacity: capacity) >= needed { return candidate }
            candidate += .milliseconds(1)
        }
        return .distantFuture
    }

    /// The most millisecond steps ``availableAgain(_:after:capacity:)`` takes past the computed
    /// refill time, to absorb the floating point's rounding.
    static let maximumRoundingSteps = 1_000

    /// The budget as restored from a store at `now`: one computed later than `now` (a store
    /// written while the wall clock was ahead, then set back) counts as computed now, so that it
    /// refills from now and not from a time that has not come. A stored value is input (issue 25).
    public func restored(at now: Instant) -> RuntimeBudget {
        updatedAt <= now ? self : RuntimeBudget(available: available, updatedAt: now)
    }
}
