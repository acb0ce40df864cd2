extension BackgroundSystem {
    /// UIKit's exact message for ending an unknown or already-ended identifier (R1.13).
    public static func unknownAssertionMessage(_ id: AssertionID) -> String {
        "Can't end BackgroundTask: no background task exists with identifier \(id), or it may have "
            + "already been ended. Break in UIApplicationEndBackgroundTaskError() to debug."
    }

    mutating func beginAssertion(
        _ app: AppID,
        name: String,
        origin: CallSite,
        hasHandler: Bool,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        let index = recordIndex(for: app)
        if let reason = denial(forAppAt: index, at: now) {
            effects.append(.assertionDenied(app, name: name, reason: reason))
            effects.append(.log(LogRecord(.warning, app: app, "background task \"\(name)\" not granted: \(reason)")))
            return
        }
        if apps[index].ledger.count >= policy.maximumOutstandingAssertions {
            let explanation =
                "too many background task assertions: \(apps[index].ledger.count + 1) requested, "
                + "at most \(policy.maximumOutstandingAssertions) allowed"
            end(index, reason: .watchdog(.tooManyAssertions), explanation: explanation, at: now, into: &effects)
            return
        }
        let id = apps[index].ledger.begin(name: name, origin: origin, at: now, hasExpirationHandler: hasHandler)
        updateBudgetTicking(index, at: now)
        effects.append(.assertionGranted(app, id))
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

    /// Why an assertion cannot be granted now, or `nil` if it can.
    private func denial(forAppAt index: Int, at now: Instant) -> String? {
        guard policy.grantsAssertions else { return "background execution is not available on this system" }
        let state = apps[index].state
        guard state.isRunning else { return "the app is \(state)" }
        let budget = apps[index].budget
        if state == .background, budget.expirationStarted || budget.remaining(at: now) <= policy.expirationLeadTime {
            return "no background time remaining"
        }
        return nil
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
