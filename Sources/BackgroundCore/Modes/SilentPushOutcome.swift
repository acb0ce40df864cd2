/// What became of a silent push the system just received (``Event/remoteNotification(_:payload:)``),
/// as `bgctl push` and a local push agent report it.
///
/// ```swift
/// let effects = try system.handle(.remoteNotification(app, payload: "{}"), at: now)
/// switch system.silentPushOutcome(of: app, since: now) {
/// case .delivered: print("application(_:didReceiveRemoteNotification:fetchCompletionHandler:) runs")
/// case .launching: print("launched in the background; delivered once the launch finishes")
/// case .waiting: print("waits for the silent-push budget or a factor; bgctl why UIApplicationRemoteNotification")
/// case .refused(let reason): print("not delivered: \(reason)")
/// }
/// ```
public enum SilentPushOutcome: Sendable, Hashable {
    /// The app's `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)` was
    /// called (its completion is due within ``SchedulingPolicy/remoteNotificationRuntime``).
    case delivered
    /// The app was launched (or resumed) in the background; the push is handed over once its
    /// launch finishes.
    case launching
    /// The push waits (the silent-push budget, or a factor such as Low Power Mode); a later
    /// push replaces it. The explanation says what it waits for and until when.
    case waiting(RequestExplanation?)
    /// The push was not delivered and is not kept: the reason, in one sentence.
    case refused(String)

    /// One word for `--json`: `delivered`, `launching`, `waiting` or `refused`.
    public var name: String {
        switch self {
        case .delivered: "delivered"
        case .launching: "launching"
        case .waiting: "waiting"
        case .refused: "refused"
        }
    }
}

extension SilentPushOutcome {
    /// The outcome as one line for a person, with the earliest time written by `formatInstant`:
    /// `delivered: application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public func text(formatInstant: (Instant) -> String) -> String {
        switch self {
        case .delivered:
            return "delivered: application(_:didReceiveRemoteNotification:fetchCompletionHandler:) is running"
        case .launching:
            return "launching the app in the background; delivered once its launch finishes"
        case .waiting(let explanation):
            guard let eligibility = explanation?.eligibility else { return "waiting" }
            let factor = eligibility.decidingFactor.map { "\($0)" } ?? "its turn"
            return
                "waiting for \(factor); earliest \(formatInstant(eligibility.earliestRun)) (a later push replaces it)"
        case .refused(let reason):
            return "not delivered: \(reason)"
        }
    }

    /// The deciding factor of a waiting push, or the reason of a refused one.
    public var reason: String? {
        switch self {
        case .delivered, .launching: nil
        case .waiting(let explanation): explanation?.eligibility?.decidingFactor.map { "\($0)" }
        case .refused(let reason): reason
        }
    }

    /// The earliest a waiting push could be delivered.
    public var earliest: Instant? {
        if case .waiting(let explanation) = self { return explanation?.eligibility?.earliestRun }
        return nil
    }
}

extension BackgroundSystem {
    /// Why a silent push to `app` would not be delivered in the background, or `nil` when it
    /// may be (it can still wait for the budget or a factor): the app is not installed, its
    /// `UIBackgroundModes` does not declare `remote-notification`, or the user force-quit it (S10).
    public func silentPushRefusal(of app: AppID) -> String? {
        guard let index = appIndex[app], let manifest = apps[index].manifest else {
            return "the app is not installed"
        }
        guard manifest.backgroundModes.contains(.remoteNotification) else {
            return "UIBackgroundModes does not declare 'remote-notification'"
        }
        guard !apps[index].forceQuit else {
            return "the user force-quit the app; pushes do not launch it until it is opened"
        }
        return nil
    }

    /// What became of the silent push `app` received last, read right after the event:
    /// delivered to a running handler, waiting for the app's launch, waiting for the budget or a
    /// factor, or refused with the reason. `since` is an instant no later than the push's event
    /// (a shell that reads the state in a second step passes the time it read before sending it).
    public func silentPushOutcome(of app: AppID, since: Instant) -> SilentPushOutcome {
        let identifier = Self.remoteNotificationIdentifier
        guard let index = appIndex[app] else { return .refused("the app is not installed") }
        let record = apps[index]
        let foreground = record.state.isForeground && record.launchFinished
        if !foreground, let refusal = silentPushRefusal(of: app) { return .refused(refusal) }
        if record.awaitingLaunch.contains(where: { $0.identifier == identifier }) { return .launching }
        if record.pending[identifier] != nil {
            return .waiting(explanation(of: app, identifier: identifier, at: now))
        }
        if record.running.values.contains(where: { $0.request.identifier == identifier }) { return .delivered }
        // Handed over and already completed (counted against the budget since then), or
        // delivered in the foreground, outside the budget.
        if foreground || record.silentPushes.last.map({ $0 >= since }) == true { return .delivered }
        return .refused("the app did not take it (\(record.state))")
    }
}
