extension BackgroundSystem {
    /// The identifier of an app's legacy background-fetch request in the queue.
    public static let fetchIdentifier = "UIApplicationBackgroundFetch"

    /// `setMinimumBackgroundFetchInterval(_:)` (S17): advisory, "never" by default, no effect
    /// without `UIBackgroundModes` `fetch`, and disabled when the manifest declares
    /// `BGTaskSchedulerPermittedIdentifiers` (S14, iOS 13+).
    mutating func setFetchInterval(_ app: AppID, _ interval: Duration?, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: app, at: now)
        if let manifest = apps[index].manifest, manifest.declaresTaskSchedulerIdentifiers {
            let message =
                "setMinimumBackgroundFetchInterval ignored: BGTaskSchedulerPermittedIdentifiers disables background fetch"
            effects.append(.log(LogRecord(.warning, app: app, message)))
            return
        }
        if interval != nil, apps[index].manifest?.backgroundModes.contains(.fetch) != true {
            let message = "setMinimumBackgroundFetchInterval has no effect without UIBackgroundModes 'fetch'"
            effects.append(.log(LogRecord(.warning, app: app, message)))
            return
        }
        apps[index].fetchInterval = interval
        removePending(index, identifier: Self.fetchIdentifier, into: &effects)
        scheduleNextFetch(index, at: now, into: &effects)
        persistAppState(index, into: &effects)
    }

    /// Queues the next fetch: no sooner than the interval after the last one (or after now),
    /// and never more often than the system's minimum, `minimumBackgroundLaunchInterval`
    /// (`backgroundFetchIntervalMinimum` asks for exactly that).
    mutating func scheduleNextFetch(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        guard let requested = apps[index].fetchInterval else { return }
        let interval = max(requested, policy.scheduling.minimumBackgroundLaunchInterval)
        let earliest = (apps[index].lastFetchAt ?? now) + interval
        let request = TaskRequest(
            identifier: Self.fetchIdentifier,
            kind: .fetch,
            earliestBegin: max(now, earliest),
            submittedAt: now
        )
        enqueue(index, request, into: &effects)
    }
}
