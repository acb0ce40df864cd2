import BackgroundCore

/// Checks the system's rules after every event the simulator hands it, from the outside: it
/// sees only events, effects and the system's public answers, as a test would.
///
/// What it enforces is ``InvariantViolation/Invariant``. Two exemptions, both deliberate: runs
/// started by the debugger's `simulateLaunch` skip the task conditions (Apple's hook ignores
/// them too), and a battery that runs out ends every process without reports, as on a phone.
struct InvariantChecker {
    private struct Promise {
        let submittedAt: Instant
        let earliest: Instant
    }

    private struct PromiseKey: Hashable {
        let app: AppID
        let identifier: String
    }

    let policy: SystemPolicy
    let enabled: Bool
    private(set) var violations: [InvariantViolation] = []
    private var reported = 0
    /// Held assertions, and whether each has an expiration handler.
    private var held: [AppID: [AssertionID: Bool]] = [:]
    private var everGranted: [AppID: Set<AssertionID>] = [:]
    /// The held assertions whose expiration handler the system called.
    private var expirationDelivered: [AppID: Set<AssertionID>] = [:]
    private var expiredTasks: Set<TaskRunID> = []
    private var callbackOutstanding: Set<AppID> = []
    private var running: [AppID: Set<TaskRunID>] = [:]
    private var debugRuns: Set<TaskRunID> = []
    /// The apps running tasks not started by the debugger, and how many each: its `count` is
    /// the number of busy apps, kept as runs start and end so that no event scans every app.
    private var busyApps: [AppID: Int] = [:]
    private var promises: [PromiseKey: Promise] = [:]
    /// The background modes each app holds, from `.modeChanged`.
    private var heldModes: [AppID: Set<BackgroundMode>] = [:]

    init(policy: SystemPolicy, enabled: Bool) {
        self.policy = policy
        self.enabled = enabled
    }

    /// The violations found since the last call.
    mutating func takeNew() -> ArraySlice<InvariantViolation> {
        defer { reported = violations.count }
        return violations[reported...]
    }

    mutating func add(_ violation: InvariantViolation) {
        violations.append(violation)
    }

    /// Checks an event's reply and effects and the state they left, for a core held by value
    /// (the checker's tests).
    mutating func observe(
        _ event: Event,
        reply: Reply? = nil,
        _ effects: [Effect],
        core: BackgroundSystem,
        at now: Instant
    ) {
        var core = core
        observe(event, reply: reply, effects, core: &core, at: now)
    }

    /// Checks an event's reply and effects and the state they left.
    ///
    /// The core is only read. It is `inout` so that it is read where it lies: the simulator's
    /// core is a stored property of a class, and passed by value it was copied whole (every
    /// table retained and released) after every event.
    mutating func observe(
        _ event: Event,
        reply: Reply? = nil,
        _ effects: [Effect],
        core: inout BackgroundSystem,
        at now: Instant
    ) {
        guard enabled else { return }
        var hasHandler = false
        switch event {
        case .beginAssertion(let app, _, _, let handler):
            hasHandler = handler
            if case .granted(let id) = reply {
                if !everGranted[app, default: []].insert(id).inserted {
                    add(.init(.assertionEndsOnce, "assertion #\(id.rawValue) was granted twice", at: now, app: app))
                }
                held[app, default: [:]][id] = hasHandler
            }
        case .assertionBegun(let app, let id, _, _, let handler):
            hasHandler = handler
            if case .granted = reply {
                if !everGranted[app, default: []].insert(id).inserted {
                    add(.init(.assertionEndsOnce, "assertion #\(id.rawValue) was granted twice", at: now, app: app))
                }
                held[app, default: [:]][id] = hasHandler
            }
        case .submitTaskRequest(let app, let request):
            // A new request: what was said about the one it replaces does not bind it.
            if case .accepted = reply { promises[PromiseKey(app: app, identifier: request.identifier)] = nil }
        case .endAssertion(let app, let id): held[app]?[id] = nil
        case .didEnterBackgroundReturned(let app), .backgroundWakeReturned(let app): callbackOutstanding.remove(app)
        default: break
        }
        let debugLaunch: Bool
        if case .simulateLaunch = event { debugLaunch = true } else { debugLaunch = false }
        var touched: Set<AppID> = event.app.map { [$0] } ?? []
        for effect in effects {
            if let app = effect.app { touched.insert(app) }
            observe(effect, hasHandler: hasHandler, debugLaunch: debugLaunch, core: core, at: now)
        }
        // Violations in an order that never depends on hashing; each app's pending requests
        // are asked for once, for both checks.
        for app in touched.sorted() {
            let pending = core.pendingRequestsWithEarliestRun(of: app, at: now)
            checkLimits(of: app, pending: pending.map(\.request), core: core, at: now)
            updatePromises(of: app, pending: pending)
        }
        checkBusyApps(at: now)
    }

    private mutating func observe(
        _ effect: Effect,
        hasHandler: Bool,
        debugLaunch: Bool,
        core: BackgroundSystem,
        at now: Instant
    ) {
        switch effect {
        case .runExpirationHandler(let app, let id):
            expirationDelivered[app, default: []].insert(id)
            if held[app]?[id] == nil {
                add(
                    .init(
                        .assertionEndsOnce,
                        "expiration handler of #\(id.rawValue) called after it ended",
                        at: now,
                        app: app
                    )
                )
            }
        case .deliverDidEnterBackground(let app), .deliverBackgroundWake(let app):
            callbackOutstanding.insert(app)
        case .expireTask(_, let id):
            expiredTasks.insert(id)
        case .runTasks(let app, let runs):
            for run in runs {
                if debugLaunch {
                    debugRuns.insert(run.id)
                } else {
                    checkConditions(of: run, app: app, device: core.currentDevice, at: now)
                }
                if running[app, default: []].insert(run.id).inserted && !debugLaunch { busyApps[app, default: 0] += 1 }
            }
        case .taskFinished(let app, let id, _):
            let wasRunning = running[app]?.remove(id) != nil
            if debugRuns.remove(id) == nil && wasRunning { leaveBusy(app, runs: 1) }
        case .modeChanged(let app, let mode, let isHeld):
            if isHeld { heldModes[app, default: []].insert(mode) } else { heldModes[app]?.remove(mode) }
        case .stateChanged(let app, _, .suspended):
            if let modes = heldModes[app], !modes.isEmpty {
                let names = modes.map(\.rawValue).sorted().joined(separator: ", ")
                add(.init(.modesKeepAppsRunning, "suspended while holding \(names)", at: now, app: app))
            }
            if let ids = held[app], !ids.isEmpty {
                let names = ids.keys.sorted().map { "#\($0.rawValue)" }.joined(separator: ", ")
                add(.init(.assertionEndsOnce, "suspended while holding \(names)", at: now, app: app))
            }
        case .terminate(let app, let report), .exit(let app, _, let report):
            checkTermination(app, report, at: now)
        default:
            break
        }
    }

    private mutating func checkConditions(of run: TaskRun, app: AppID, device: DeviceConditions, at now: Instant) {
        let request = run.request
        if let earliest = request.earliestBegin, now < earliest {
            add(
                .init(
                    .taskConditionsHold,
                    "\"\(request.identifier)\" ran before its earliest date \(earliest)",
                    at: now,
                    app: app
                )
            )
        }
        if request.requiresExternalPower && device.powerSource != .externalPower {
            add(.init(.taskConditionsHold, "\"\(request.identifier)\" ran without external power", at: now, app: app))
        }
        if request.kind != .continuedProcessing && !device.unlockedSinceBoot {
            add(.init(.taskConditionsHold, "\"\(request.identifier)\" ran before the first unlock", at: now, app: app))
        }
        if request.requiresNetworkConnectivity && !device.hasNetwork {
            add(.init(.taskConditionsHold, "\"\(request.identifier)\" ran without a network", at: now, app: app))
        }
        let key = PromiseKey(app: app, identifier: request.identifier)
        if let promise = promises.removeValue(forKey: key), promise.submittedAt == request.submittedAt,
            now < promise.earliest
        {
            let message =
                "\"\(request.identifier)\" ran at \(now), but its explanation said not before \(promise.earliest)"
            add(.init(.honestExplanations, message, at: now, app: app))
        }
    }

    private mutating func checkTermination(_ app: AppID, _ report: TerminationReport, at now: Instant) {
        let holding = held[app] ?? [:]
        let named = Set(report.leakedAssertions.map(\.id))
        let unnamed = holding.keys.filter { !named.contains($0) }.sorted()
        if !unnamed.isEmpty {
            let list = unnamed.map { "#\($0.rawValue)" }.joined(separator: ", ")
            add(.init(.assertionEndsOnce, "ended (\(report.reason)) without naming \(list)", at: now, app: app))
        }
        if report.code == .watchdogTimeout && !callbackOutstanding.contains(app) {
            // What the watchdog ends for, something must have been told first: an assertion's
            // expiration handler, or a task's expiration.
            let withHandlers = report.leakedAssertions.filter { holding[$0.id] == true }
            let tasks = report.uncompletedTasks
            let delivered = expirationDelivered[app] ?? []
            let warned =
                report.leakedAssertions.contains { delivered.contains($0.id) }
                || tasks.contains { expiredTasks.contains($0.run) }
            if !warned && (!withHandlers.isEmpty || !tasks.isEmpty) {
                let what = withHandlers.first.map { "holding \"\($0.name)\"" } ?? "running \"\(tasks[0].identifier)\""
                add(
                    .init(
                        .expirationBeforeWatchdog,
                        "killed \(what) before any expiration was delivered",
                        at: now,
                        app: app
                    )
                )
            }
        }
        held[app] = nil
        everGranted[app] = nil  // a new process numbers its assertions from 1 again
        expirationDelivered[app] = nil
        for task in report.uncompletedTasks { expiredTasks.remove(task.run) }
        callbackOutstanding.remove(app)
        leaveBusy(app, runs: busyApps[app] ?? 0)
        running[app] = nil
    }

    /// Counts `runs` of the app's ordinary (not debugger) runs as ended.
    private mutating func leaveBusy(_ app: AppID, runs: Int) {
        guard runs > 0, let count = busyApps[app] else { return }
        busyApps[app] = count > runs ? count - runs : nil
    }

    private mutating func checkLimits(of app: AppID, pending: [TaskRequest], core: BackgroundSystem, at now: Instant) {
        let scheduling = policy.scheduling
        let limits: [(TaskKind, Int)] = [
            (.appRefresh, scheduling.maximumPendingRefreshRequests),
            (.processing, scheduling.maximumPendingProcessingRequests),
            (.continuedProcessing, scheduling.maximumPendingContinuedRequests),
        ]
        for (kind, limit) in limits {
            let count = pending.count { $0.kind == kind }
            if count > limit {
                add(.init(.limitsHold, "\(count) pending \(kind) requests, limit \(limit)", at: now, app: app))
            }
        }
        // (The core clamps the remaining time at zero; what is left to check is the top.)
        if let remaining = core.backgroundTimeRemaining(of: app, at: now), remaining > policy.backgroundTimeBudget {
            add(.init(.limitsHold, "background time remaining \(remaining), above the budget", at: now, app: app))
        }
    }

    private mutating func checkBusyApps(at now: Instant) {
        let limit = policy.scheduling.maximumAppsRunningTasks
        if busyApps.count > limit {
            add(.init(.limitsHold, "\(busyApps.count) apps running tasks at once, limit \(limit)", at: now))
        }
    }

    /// Remembers, for each pending request of an app the event touched, the earliest run its
    /// explanation promises (``BackgroundSystem/eligibility(of:identifier:at:)``, all of the
    /// app's at once); a run before it is a lie.
    private mutating func updatePromises(of app: AppID, pending: [(request: TaskRequest, earliestRun: Instant)]) {
        for (request, earliest) in pending {
            let key = PromiseKey(app: app, identifier: request.identifier)
            promises[key] = Promise(submittedAt: request.submittedAt, earliest: earliest)
        }
    }

    /// Code of the app is about to run: only a running (not suspended, not ended) app runs code.
    mutating func appCodeRuns(_ app: AppID, state: AppLifecycleState, at now: Instant) {
        guard enabled, !state.isRunning else { return }
        add(.init(.suspendedAppRunsNoCode, "app code ran while \(state)", at: now, app: app))
    }

    /// The system restarted: every process ended with it.
    mutating func systemRestarted() {
        held = [:]
        heldModes = [:]
        everGranted = [:]
        expirationDelivered = [:]
        expiredTasks = []  // a new system numbers its runs from 1 again
        callbackOutstanding = []
        running = [:]
        debugRuns = []
        busyApps = [:]
        promises = [:]
    }

    /// After a restart, every request pending before it is pending again.
    mutating func checkRestored(_ before: [(AppID, [TaskRequest])], core: BackgroundSystem, at now: Instant) {
        guard enabled else { return }
        for (app, requests) in before {
            let after = core.pendingRequests(of: app)
            for request in requests where !request.kind.isDelegateCallback && !after.contains(request) {
                let what = after.contains { $0.identifier == request.identifier } ? "came back changed" : "is gone"
                let message = "\"\(request.identifier)\" was pending before the reboot and \(what)"
                add(.init(.rebootKeepsRequests, message, at: now, app: app))
            }
        }
    }
}

extension Event {
    /// The app an event concerns, if one.
    var app: AppID? {
        switch self {
        case .launch(let app, _), .activate(let app), .deactivate(let app), .enterBackground(let app),
            .enterForeground(let app), .resumeInBackground(let app), .didEnterBackgroundReturned(let app),
            .backgroundWakeReturned(let app), .beginAssertion(let app, _, _, _), .endAssertion(let app, _),
            .assertionBegun(let app, _, _, _, _),
            .expirationHandlerReturned(let app, _), .terminate(let app, _), .finishLaunching(let app),
            .registerTaskHandler(let app, _), .submitTaskRequest(let app, _), .cancelTaskRequest(let app, _),
            .cancelAllTaskRequests(let app), .completeTask(let app, _, _), .reportTaskProgress(let app, _, _),
            .userCancelledTask(let app, _), .setMinimumBackgroundFetchInterval(let app, _),
            .simulateLaunch(let app, _), .simulateExpiration(let app, _), .beginModeActivity(let app, _),
            .endModeActivity(let app, _), .remoteNotification(let app, _):
            return app
        case .install(let manifest): return manifest.bundleIdentifier
        case .restore(let saved): return saved.app
        case .setBackgroundRefresh(.appSwitch(let app, _)): return app
        case .setBackgroundRefresh, .tick, .setDevice, .memoryPressure: return nil
        }
    }
}
