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
            effects.append(contentsOf: Effect.deniedBegin(app, name: name, reason: reason))
            return .denied(reason: reason)
        case .tooMany:
            endForTooManyAssertions(index, at: now, into: &effects)
            return nil
        }
    }

    /// One assertion over the limit: the watchdog ends the app (`0xbada5e47`).
    private mutating func endForTooManyAssertions(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        let explanation =
            "too many background task assertions: \(apps[index].ledger.count + 1) requested, "
            + "at most \(policy.maximumOutstandingAssertions) allowed"
        end(index, reason: .watchdog(.tooManyAssertions), explanation: explanation, at: now, into: &effects)
    }

    /// An assertion the app's runtime granted itself, as the event carries it.
    struct AllocatedBegin {
        let id: AssertionID
        let name: String
        let origin: CallSite
        let hasHandler: Bool
    }

    /// Applies a begin the app's runtime granted itself with an identifier it allocated
    /// (``Event/assertionBegun(_:_:name:origin:hasExpirationHandler:)``): the same grant rule;
    /// a verdict that differs revokes it (``Effect/assertionRevoked(_:_:reason:)``).
    mutating func assertionBegun(
        _ app: AppID,
        _ begin: AllocatedBegin,
        at now: Instant,
        into effects: inout [Effect]
    ) -> Reply? {
        let index = recordIndex(for: app)
        guard apps[index].ledger.isNew(begin.id) else {
            let reason =
                "assertion identifier \(begin.id.rawValue) is not new in \(apps[index].incarnation) "
                + "(the next is \(apps[index].ledger.nextID.rawValue)): the begin is refused"
            effects.append(.log(LogRecord(.error, app: app, reason)))
            return .denied(reason: reason)
        }
        switch assertionVerdict(index, at: now) {
        case .grant:
            _ = apps[index].ledger.begin(
                allocated: begin.id,
                name: begin.name,
                origin: begin.origin,
                at: now,
                hasExpirationHandler: begin.hasHandler
            )
            updateBudgetTicking(index, at: now)
            return .granted(begin.id)
        case .deny(let reason):
            _ = apps[index].ledger.revoke(begin.id)
            effects.append(.assertionRevoked(app, begin.id, reason: reason))
            effects.append(
                .log(
                    LogRecord(.warning, app: app, "background task \"\(begin.name)\" (\(begin.id)) revoked: \(reason)")
                )
            )
            return .denied(reason: reason)
        case .tooMany:
            endForTooManyAssertions(index, at: now, into: &effects)
            return nil
        }
    }

    /// Starts or stops the budget's clock. It ticks while the app is in the background holding an
    /// assertion (R1.7) and running no task: while a task runs, the task's own runtime governs
    /// the process, and an assertion begun meanwhile must not end it sooner (**ours**; found by
    /// the simulator's fuzzer: a 30 s assertion budget killed apps in the middle of a 10-minute
    /// processing task that had never been expired). Nor while the app holds a background mode's
    /// activity (``ModeActivity``): the mode keeps it running, and no budget ticks.
    mutating func updateBudgetTicking(_ index: Int, at now: Instant) {
        if apps[index].state == .background && !apps[index].ledger.isEmpty && apps[index].running.isEmpty
            && apps[index].modeActivities.isEmpty
        {
            apps[index].budget.startTicking(at: now)
        } else {
            apps[index].budget.stopTicking(at: now)
        }
    }

    /// The one grant rule (``GrantRule``) applied to an app's record: whether it may begin an
    /// assertion now. Everything it reads (the lifecycle state, the budget) is state the system
    /// pushes to an app across a process boundary (``grantState(of:at:)``), so an app-side
    /// runtime applies the same rule without a round trip (docs/core-contract.md).
    @inline(__always)
    func assertionVerdict(_ index: Int, at now: Instant) -> GrantRule.Verdict {
        // Fields read in place: a copy of the whole record would retain and release each of its
        // collections on the hot path.
        grantRule.verdict(
            state: apps[index].state,
            budgetRemaining: apps[index].budget.remaining(at: now),
            budgetExpiring: apps[index].budget.expirationStarted,
            held: apps[index].ledger.count
        )
    }

    /// What the app's runtime needs to decide its own begins: the state to push to it.
    public func grantState(of app: AppID, at now: Instant) -> GrantState {
        let now = max(now, self.now)
        guard let index = appIndex[app] else {
            return GrantState(
                incarnation: Incarnation(rawValue: 0),
                nextAssertionID: AssertionID(rawValue: 1),
                lifecycleState: .notRunning,
                budgetRemaining: .zero,
                budgetTicking: false,
                budgetExpiring: false,
                measuredAt: now,
                rule: grantRule
            )
        }
        let record = apps[index]
        return GrantState(
            incarnation: record.incarnation,
            nextAssertionID: record.ledger.nextID,
            lifecycleState: record.state,
            budgetRemaining: record.budget.remaining(at: now),
            budgetTicking: record.budget.isTicking,
            budgetExpiring: record.budget.expirationStarted,
            measuredAt: now,
            rule: grantRule
        )
    }

    mutating func endAssertion(_ app: AppID, _ id: AssertionID, at now: Instant, into effects: inout [Effect]) {
        guard let index = appIndex[app], apps[index].state.isRunning else {
            effects.append(
                .log(LogRecord(.warning, app: app, "endBackgroundTask(\(id)) from an app that is not running"))
            )
            return
        }
        guard apps[index].ledger.end(id) != nil else {
            if apps[index].ledger.endRevoked(id) { return }  // revoked at its begin: its end is expected
            effects.append(.log(LogRecord(.error, app: app, Self.unknownAssertionMessage(id))))
            return
        }
        if apps[index].ledger.isEmpty {
            apps[index].budget.stopTicking(at: now)
            settle(index, at: now, into: &effects)
        }
    }
}

extension Effect {
    /// What a denied begin is answered with, in order: ``assertionDenied(_:name:reason:)`` (the
    /// app runtime's interpreter calls the begin's expiration handler on the main actor, S2) and
    /// the warning. Written once: the core answers its own denials with it, and an app's runtime
    /// that denies a begin from the pushed grant state hands the same effects to its interpreter.
    public static func deniedBegin(_ app: AppID, name: String, reason: String) -> [Effect] {
        [
            .assertionDenied(app, name: name, reason: reason),
            .log(LogRecord(.warning, app: app, "background task \"\(name)\" not granted: \(reason)")),
        ]
    }
}
