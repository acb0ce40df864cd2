extension BackgroundSystem {
    /// The identifier of an app's deferred silent push in the queue (one at most: later pushes
    /// replace it, as iOS coalesces them).
    public static let remoteNotificationIdentifier = "UIApplicationRemoteNotification"

    /// A silent push arrived (``Event/remoteNotification(_:payload:)``).
    ///
    /// In the foreground it is handed to the app at once, outside any budget. Otherwise it wakes
    /// the app (resumed if suspended, launched in the background if not running) only if the
    /// manifest declares `remote-notification` and the user has not force-quit the app (S10);
    /// the other factors of a background push (all but app usage, WWDC20 10063) and the
    /// silent-push budget (``SchedulingPolicy/silentPushesPerWindow``) defer it, and a push that
    /// arrives while another waits replaces it. The app then has
    /// ``SchedulingPolicy/remoteNotificationRuntime`` to call the completion handler, or it is
    /// ended with `0x8badf00d`.
    mutating func receiveRemoteNotification(
        _ app: AppID,
        payload: String,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        guard let index = appIndex[app], apps[index].manifest != nil else {
            effects.append(.log(LogRecord(.warning, app: app, "silent push dropped: the app is not installed")))
            return
        }
        var request = TaskRequest(identifier: Self.remoteNotificationIdentifier, kind: .remoteNotification)
        request.earliestBegin = now
        request.submittedAt = now
        request.payload = payload
        let record = apps[index]
        if record.state.isForeground && record.launchFinished {
            effects.append(.log(LogRecord(.info, app: app, "silent push delivered in the foreground")))
            startRuns(index, [request], at: now, into: &effects)
            refreshBusy(index)
            return
        }
        if let refusal = silentPushRefusal(of: app) {
            let level: LogRecord.Level = record.forceQuit ? .notice : .warning
            effects.append(.log(LogRecord(level, app: app, "silent push not delivered in the background: \(refusal)")))
            return
        }
        if record.pending[Self.remoteNotificationIdentifier] != nil {
            effects.append(.log(LogRecord(.info, app: app, "silent push coalesced with the one still waiting")))
        }
        enqueue(index, request, into: &effects)  // dispatched with this event if nothing holds it
    }

    /// When the silent-push budget lets the app have another push in the background, or `nil`
    /// if it may have one now.
    func silentPushAvailableAgain(_ index: Int, at now: Instant) -> Instant? {
        let scheduling = policy.scheduling
        let recent = apps[index].silentPushes.filter { $0 > now - scheduling.silentPushWindow }
        guard recent.count >= scheduling.silentPushesPerWindow, let oldest = recent.first else { return nil }
        return oldest + scheduling.silentPushWindow
    }

    /// Counts a silent push handed over in the background against the budget.
    mutating func spendSilentPush(_ index: Int, at now: Instant) {
        apps[index].silentPushes.append(now)
        let excess = apps[index].silentPushes.count - policy.scheduling.silentPushesPerWindow
        if excess > 0 { apps[index].silentPushes.removeFirst(excess) }
    }

    /// How many silent pushes the app may still receive in the background now.
    public func silentPushesRemaining(of app: AppID, at now: Instant) -> Int {
        guard let index = appIndex[app] else { return policy.scheduling.silentPushesPerWindow }
        let window = policy.scheduling.silentPushWindow
        let recent = apps[index].silentPushes.filter { $0 > now - window }.count
        return max(0, policy.scheduling.silentPushesPerWindow - recent)
    }
}
