extension BackgroundSystem {
    /// Returns the error the event would raise in the current state, or `nil` if it is allowed.
    /// Only the events `Event.canBeRefused` lists can get an error here: keep the two in step.
    func validate(_ event: Event) -> BackgroundSystemError? {
        func check(_ app: AppID, _ name: String, allowed: (AppLifecycleState) -> Bool) -> BackgroundSystemError? {
            let current = state(of: app)
            return allowed(current)
                ? nil : BackgroundSystemError(code: .illegalTransition, app: app, state: current, event: name)
        }
        switch event {
        case .launch(let app, .foreground):
            return check(app, "launch") { $0 == .notRunning || $0.isTerminated }
        case .launch(let app, .background):
            // A force-quit app is not launched in the background until the user opens it (S10).
            let forceQuit = appIndex[app].map { apps[$0].forceQuit } ?? false
            return check(app, "launch") { ($0 == .notRunning || $0.isTerminated) && !forceQuit }
        case .activate(let app):
            return check(app, "activate") { $0 == .inactive }
        case .deactivate(let app):
            return check(app, "deactivate") { $0 == .active }
        case .enterBackground(let app):
            return check(app, "enterBackground") { $0 == .inactive }
        case .enterForeground(let app):
            return check(app, "enterForeground") { $0 == .background || $0 == .suspended }
        case .resumeInBackground(let app):
            return check(app, "resumeInBackground") { $0 == .suspended }
        case .terminate(let app, let reason):
            let current = state(of: app)
            // The app switcher's swipe also removes the card of a known app whose process is gone:
            // it sets the force-quit flag all the same (S10).
            if reason == .userForceQuit, appIndex[app] != nil { return nil }
            return current.hasProcess
                ? nil : BackgroundSystemError(code: .appNotRunning, app: app, state: current, event: "terminate")
        case .didEnterBackgroundReturned, .backgroundWakeReturned, .beginAssertion, .assertionBegun, .endAssertion,
            .expirationHandlerReturned, .setBackgroundRefresh, .tick, .install, .finishLaunching,
            .registerTaskHandler, .submitTaskRequest, .cancelTaskRequest, .cancelAllTaskRequests, .completeTask,
            .reportTaskProgress, .userCancelledTask, .setDevice, .setMinimumBackgroundFetchInterval, .simulateLaunch,
            .simulateExpiration, .restore, .beginModeActivity, .endModeActivity, .remoteNotification, .memoryPressure:
            return nil
        }
    }

    mutating func launch(_ app: AppID, _ kind: LaunchKind, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: app)
        let previous = apps[index].state
        resetProcess(index)
        apps[index].budget.refill(policy.backgroundTimeBudget)
        effects.append(.launch(app, kind == .foreground ? .user : .system, nextIncarnation(index)))
        switch kind {
        case .foreground:
            setState(index, .inactive)
            effects.append(.stateChanged(app, from: previous, to: .inactive))
            recordUserLaunch(index, at: now, into: &effects)
        case .background:
            setState(index, .background)
            apps[index].callbacks = PendingCallbacks(
                kind: .backgroundWake,
                deadline: now + policy.backgroundWakeTimeLimit
            )
            effects.append(.stateChanged(app, from: previous, to: .background))
            effects.append(.deliverBackgroundWake(app))
        }
    }

    mutating func transition(_ app: AppID, to target: AppLifecycleState, at now: Instant, into effects: inout [Effect])
    {
        let index = recordIndex(for: app)
        let previous = apps[index].state
        setState(index, target)
        effects.append(.stateChanged(app, from: previous, to: target))
    }

    /// The user opened the app (launched it or switched back to it): usage for the predictor,
    /// and the force-quit flag clears (S10).
    mutating func recordUserLaunch(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        apps[index].usage.recordLaunch(at: now, limit: policy.scheduling.usageHistoryLimit)
        apps[index].forceQuit = false
        effects.append(.persist(.recordLaunch(apps[index].id, at: now)))
        persistAppState(index, into: &effects)
        examineIfParked(index, at: now, into: &effects)
    }

    mutating func enterBackground(_ app: AppID, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: app)
        setState(index, .background)
        apps[index].budget.refill(policy.backgroundTimeBudget)
        // Assertions begun in the foreground were dormant; they become effective now (R1.7).
        updateBudgetTicking(index, at: now)
        apps[index].callbacks = PendingCallbacks(
            kind: .didEnterBackground,
            deadline: now + policy.didEnterBackgroundTimeLimit
        )
        effects.append(.stateChanged(app, from: .inactive, to: .background))
        effects.append(.deliverDidEnterBackground(app))
    }

    mutating func enterForeground(_ app: AppID, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: app)
        let previous = apps[index].state
        apps[index].budget.stopTicking(at: now)
        apps[index].callbacks = nil
        if let run = apps[index].expiration {
            // Back in the foreground nothing is expiring: handlers not yet called stay armed.
            apps[index].ledger.restoreUndelivered(run.pending)
            apps[index].expiration = nil
        }
        setState(index, .inactive)
        if previous == .suspended { effects.append(.resume(app, apps[index].incarnation)) }
        effects.append(.stateChanged(app, from: previous, to: .inactive))
        recordUserLaunch(index, at: now, into: &effects)  // the user opened it: that is use
    }

    mutating func resumeInBackground(_ app: AppID, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: app)
        apps[index].budget.refill(policy.backgroundTimeBudget)
        setState(index, .background)
        apps[index].callbacks = PendingCallbacks(kind: .backgroundWake, deadline: now + policy.backgroundWakeTimeLimit)
        effects.append(.resume(app, apps[index].incarnation))
        effects.append(.stateChanged(app, from: .suspended, to: .background))
        effects.append(.deliverBackgroundWake(app))
    }

    mutating func callbacksReturned(
        _ app: AppID,
        _ kind: PendingCallbacks.Kind,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        guard let index = appIndex[app], apps[index].callbacks?.kind == kind else {
            effects.append(.log(LogRecord(.debug, app: app, "\(kind) callbacks returned late; ignored")))
            return
        }
        apps[index].callbacks = nil
        if kind == .backgroundWake { markLaunchFinished(index, at: now, into: &effects) }
        settle(index, at: now, into: &effects)
    }

    mutating func terminate(_ app: AppID, _ reason: TerminationReason, at now: Instant, into effects: inout [Effect]) {
        let index = recordIndex(for: app)
        let explanation: String
        switch reason {
        case .userForceQuit: explanation = "the user removed the app from the app switcher"
        case .systemReclaimed: explanation = "the system reclaimed the suspended app"
        case .exited(let status): explanation = "the process exited with status \(status)"
        case .watchdog(.deadlock): explanation = "suspended while holding a file lock in a shared container"
        case .watchdog: explanation = "ended by the watchdog"
        }
        // No background launches until the user opens it again (set before the process ends, so
        // the slots its tasks free are not handed straight back to it).
        if reason == .userForceQuit { apps[index].forceQuit = true }
        if apps[index].state.hasProcess {
            end(index, reason: reason, explanation: explanation, at: now, into: &effects)
        }
        if reason == .userForceQuit {
            // Queued continued-processing requests are cancelled by the swipe (S13).
            let continued = apps[index].pending.values.filter { $0.request.kind == .continuedProcessing }
                .map(\.request.identifier).sorted()  // in identifier order, never the dictionary's
            for identifier in continued { removePending(index, identifier: identifier, into: &effects) }
            persistAppState(index, into: &effects)
        }
    }

    /// Suspends (or, in the server profile, exits) an app in the background that needs no more
    /// time: no assertion held, its background callbacks returned, no expiration handler running.
    mutating func settle(_ index: Int, at now: Instant, into effects: inout [Effect]) {
        guard apps[index].state == .background, apps[index].ledger.isEmpty, apps[index].callbacks == nil,
            apps[index].expiration == nil, apps[index].running.isEmpty, apps[index].awaitingLaunch.isEmpty,
            apps[index].modeActivities.isEmpty  // a held mode keeps it running
        else { return }
        let id = apps[index].id
        apps[index].budget.stopTicking(at: now)
        switch policy.idleBackgroundAction {
        case .suspend:
            setState(index, .suspended)
            effects.append(.stateChanged(id, from: .background, to: .suspended))
            effects.append(.suspend(id))
        case .exit(let status):
            end(
                index,
                reason: .exited(status: status),
                explanation: "the last background task ended",
                at: now,
                into: &effects
            )
        }
    }

    /// Ends the app's process: clears its records and reports what it still held.
    mutating func end(
        _ index: Int,
        reason: TerminationReason,
        explanation: String,
        at now: Instant,
        into effects: inout [Effect]
    ) {
        let record = apps[index]
        let leaked = apps[index].ledger.removeAll().map(TerminationReport.LeakedAssertion.init)
        let uncompleted = record.running.values.sorted { $0.id < $1.id }.map(TerminationReport.UncompletedTask.init)
        continuedRunning -= record.running.values.filter { $0.request.kind == .continuedProcessing }.count
        let report = TerminationReport(
            incident: nextIncident(),
            app: record.id,
            reason: reason,
            explanation: explanation,
            at: now,
            stateBefore: record.state,
            permittedBackgroundDuration: policy.backgroundTimeBudget,
            leakedAssertions: leaked,
            policyName: policy.name,
            uncompletedTasks: uncompleted
        )
        let wasBusy = busyApps.contains(index)
        for held in record.modeActivities { effects.append(.modeChanged(record.id, held.mode, held: false)) }
        recordKilledRuns(index, at: now, into: &effects)
        resetProcess(index)
        refreshBusy(index)
        setState(index, .terminated(reason))
        apps[index].budget.refill(policy.backgroundTimeBudget)
        apps[index].expiration = nil
        apps[index].callbacks = nil
        effects.append(.stateChanged(record.id, from: record.state, to: .terminated(reason)))
        switch reason {
        case .exited(let status):
            effects.append(.exit(record.id, status: status, report))
        case .watchdog(let code):
            let summary =
                "terminated with \(code): \(explanation); \(leaked.count) assertion(s) held, "
                + "\(uncompleted.count) task(s) not completed"
            effects.append(.log(LogRecord(.error, app: record.id, summary)))
            effects.append(.terminate(record.id, report))
        case .userForceQuit, .systemReclaimed:
            effects.append(.terminate(record.id, report))
        }
        if wasBusy { examineSlotWaiters(at: now, into: &effects) }  // its slot is free now
    }
}

extension AppLifecycleState {
    /// Whether the app's process has ended.
    public var isTerminated: Bool {
        if case .terminated = self { return true }
        return false
    }
}

extension Event {
    /// Whether ``BackgroundSystem/validate(_:)`` can refuse the event (an illegal lifecycle
    /// transition); every other event is accepted in any state.
    var canBeRefused: Bool {
        switch self {
        case .launch, .activate, .deactivate, .enterBackground, .enterForeground, .resumeInBackground, .terminate:
            return true
        case .didEnterBackgroundReturned, .backgroundWakeReturned, .beginAssertion, .assertionBegun, .endAssertion,
            .expirationHandlerReturned, .setBackgroundRefresh, .tick, .install, .finishLaunching,
            .registerTaskHandler, .submitTaskRequest, .cancelTaskRequest, .cancelAllTaskRequests, .completeTask,
            .reportTaskProgress, .userCancelledTask, .setDevice, .setMinimumBackgroundFetchInterval, .simulateLaunch,
            .simulateExpiration, .restore, .beginModeActivity, .endModeActivity, .remoteNotification, .memoryPressure:
            return false
        }
    }
}
