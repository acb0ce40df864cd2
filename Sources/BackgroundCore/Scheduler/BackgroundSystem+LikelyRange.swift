/// When a waiting request will likely run: **the project's own estimate**, not Apple's.
///
/// Apple publishes no such numbers ("the delay … can be many hours"). The range starts at the
/// earliest possible time (``Eligibility/earliestRun``) and ends where this system's own
/// usage predictor and budgets say the run should have happened: the end of the next predicted
/// use window for refreshes, plus the launch spacing of the rate limit.
public struct LikelyRange: Sendable, Hashable, Codable {
    /// The earliest possible run (a hard bound of the rules, not an estimate).
    public var earliest: Instant
    /// The likely latest run, or `nil` when it depends on the device or the user (plugging in,
    /// connecting, opening the app), which no predictor here foresees.
    public var latest: Instant?
    /// What the range is based on, in words.
    public var basis: [String]
    /// Always true: this range is the project's estimate, never a promise Apple makes.
    public var isEstimate: Bool { true }
}

extension BackgroundSystem {
    /// The likely range of a pending request's run: from its earliest possible time to where the
    /// usage predictor and the budgets put it (the project's own estimate).
    ///
    /// - Returns: `nil` if the app has no pending request with that identifier.
    public func likelyRange(of app: AppID, identifier: String, at now: Instant) -> LikelyRange? {
        guard let why = eligibility(of: app, identifier: identifier, at: now), let index = appIndex[app] else {
            return nil
        }
        let scheduling = policy.scheduling
        var range = LikelyRange(earliest: why.earliestRun, latest: nil, basis: [])
        let waiting = why.unmet.filter { $0.clearsAt == nil && $0 != .systemBusy && $0 != .concurrencyLimit }
        guard waiting.isEmpty else {
            range.basis.append(
                "waits on the device or the user first: " + waiting.map(\.description).joined(separator: ", ")
            )
            return range
        }
        var latest = why.earliestRun
        let factors = scheduling.factors(for: why.request.kind)
        if factors.contains(.appUsage) && why.request.kind != .processing,
            let window = apps[index].usage.refreshWindow(at: why.earliestRun, policy: scheduling)
        {
            latest = max(latest, window) + scheduling.refreshWindowBeforePredictedUse
            range.basis.append(
                "the usage predictor's next window (\(DurationText.format(scheduling.refreshWindowBeforePredictedUse)))"
            )
        }
        if factors.contains(.rateLimiting) {
            latest = latest + scheduling.minimumBackgroundLaunchInterval
            range.basis.append("launch spacing of \(DurationText.format(scheduling.minimumBackgroundLaunchInterval))")
        }
        if factors.contains(.systemBudget), let runtime = scheduling.runtime(of: why.request.kind) {
            let refill = apps[index].runtimeBudget.availableAgain(
                runtime,
                after: latest,
                capacity: scheduling.dailyBackgroundBudget
            )
            if refill > latest { range.basis.append("the budget refilling") }
            latest = max(latest, refill)
        }
        range.latest = latest
        return range
    }
}
