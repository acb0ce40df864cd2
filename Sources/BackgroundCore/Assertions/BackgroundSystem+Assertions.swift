extension BackgroundSystem {
    /// UIKit's exact message for ending an unknown or already-ended identifier (R1.13).
    public static func unknownAssertionMessage(_ id: AssertionID) -> String {
        "Can't end BackgroundTask: no background task exists with identifier \(id), or it may have "
            + "already been ended. Break in UIApplicationEndBackgroundTaskError() to debug."
    }

    /// Begins an assertion on the full event path. The rule is ``assertionVerdict(_:at:)``,
    /// the same one the foreground fast path (``beginAssertionInForeground(_:name:origin:hasExpirationHandler:at:)``)
    /// applies.
    mutating func beginAssertion(
        _ app: AppID,
        name: String,
        origin: CallSite,
        hasHandler: Bool,
        at now: Instant,
        into effects: inout [Effect]
    ) -> Reply? {
        let index = recordIndex(for: app)
        switch assertionVerdict(index, at: now) {
        case .grant:
            let id = apps[index].ledger.begin(name: name, origin: origin, at: now, hasExpirationHandler: hasHandler)
            updateBudgetTicking(index, at: now)
            return .granted(id)
        case .deny(let reason):
            effects.append(.assertionDenied(app, name: name, reason: reason))
            effects.append(.log(LogRecord(.warning, app: app, "background task \"\(name)\" not granted: \(reason)")))
            return .denied(reason: reason)
        case .tooMany:
            let explanation =
                "too many background task assertions: \(apps[index].ledger.count + 1) requested, "
                + "at most \(policy.maximumOutstandingAssertions) allowed"
            end(index, reason: .watchdog(.tooManyAssertions), explanation: explanation, at: now, into: &effects)
            return nil
        }
    }

    /// Starts or stops the budget's clock. It ticks while the app is in the background holding an
    /// assertion (R1.7) and running no task: while a task runs, the task's own runtime governs
    /// the process, and an assertion begun meanwhile must not end it sooner (**ours**; found by
    /// the simulator's fuzzer: a 30 s assertion budget killed apps in the middle of a 10-minute
    /// processing task that had never been expired).
    mutating func updateBudgetTicking(_ index: Int, at now: Instant) {
        let record = apps[index]
        if record.state == .background && !record.ledger.isEmpty && record.running.isEmpty {
            apps[index].budget.startTicking(at: now)
        } else {
            apps[index].budget.stopTicking(at: now)
        }
    }

    /// What a begin gets: the one grant rule, used by every path a begin can take.
    enum AssertionVerdict {
        /// Granted.
        case grant
        /// Not granted, for this reason: `.invalid`, and the expiration handler is called.
        case deny(String)
        /// One more than ``SystemPolicy/maximumOutstandingAssertions``: the watchdog ends the app.
        case tooMany
    }

    /// The grant rule, written once: whether the app may begin an assertion now.
    ///
    /// The app must be running; in the background its budget must not be expiring (nor within
    /// ``SystemPolicy/expirationLeadTime`` of its end); and it may hold at most
    /// ``SystemPolicy/maximumOutstandingAssertions``. Everything it reads (the lifecycle state,
    /// the budget's end) is state the system pushes to an app across a process boundary, so an
    /// app-side runtime can apply the same rule without a round trip (docs/core-contract.md).
    @inline(__always)
    func assertionVerdict(_ index: Int, at now: Instant) -> AssertionVerdict {
        guard policy.grantsAssertions else { return .deny("background execution is not available on this system") }
        let state = apps[index].state
        guard state.isRunning else { return .deny("the app is \(state)") }
        if state == .background {
            let budget = apps[index].budget
            if budget.expirationStarted || budget.remaining(at: now) <= policy.expirationLeadTime {
                return .deny("no background time remaining")
            }
        }
        return apps[index].ledger.count < policy.maximumOutstandingAssertions ? .grant : .tooMany
    }

    mutating func endAssertion(_ app: AppID, _ id: AssertionID, at now: Instant, into effects: inout [Effect]) {
        guard let index = appIndex[app], apps[index].state.isRunning else {
            effects.append(
                .log(LogRecord(.warning, app: app, "endBackgroundTask(\(id)) from an app that is not running"))
            )
            return
        }
        guard apps[index].ledger.end(id) != nil else {
            effects.append(.log(LogRecord(.error, app: app, Self.unknownAssertionMessage(id))))
            return
        }
        if apps[index].ledger.isEmpty {
            apps[index].budget.stopTicking(at: now)
            settle(index, at: now, into: &effects)
        }
    }
}
