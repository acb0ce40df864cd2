/// What the system asks its shell to do in answer to an event.
///
/// Effects are instructions; the embedded system, the daemon and the simulator are three
/// interpreters of the same effects, and each follows every one of them. Their order within one
/// answer is the order to carry them out in. What the caller of an app call gets back (an
/// identifier, a rejection) is not an effect: it is the ``Reply`` that
/// ``BackgroundSystem/handle(_:at:into:)`` returns.
public enum Effect: Sendable, Hashable, Codable {
    /// The assertion just asked for (the event this answers) was not granted: call the caller's
    /// expiration handler on the main actor (S2: "If the system is unable to grant the task
    /// assertion, it calls your expiration handler"). The begin's ``Reply`` is
    /// ``Reply/denied(reason:)`` with the same reason.
    case assertionDenied(AppID, name: String, reason: String)
    /// The system did not grant an assertion the app's runtime granted itself
    /// (``Event/assertionBegun(_:_:name:origin:hasExpirationHandler:)``): the state changed
    /// while the begin was on its way. The app's runtime calls the assertion's expiration
    /// handler, as for an assertion that expired early (the budget can end at any moment), and
    /// the app's end of it is accepted quietly. The begin's reply is ``Reply/denied(reason:)``.
    case assertionRevoked(AppID, AssertionID, reason: String)
    /// Start a process for the app: its `incarnation`-th. The shell starts it (the simulator
    /// creates its process, the daemon spawns it); the app's launch code then runs, and the
    /// ``deliverBackgroundWake(_:)`` or ``stateChanged(_:from:to:)`` that follow are for it.
    /// Handlers of earlier incarnations never run again.
    case launch(AppID, LaunchReason, Incarnation)
    /// Thaw the app's suspended process (this incarnation): the work it is resumed for follows.
    case resume(AppID, Incarnation)
    /// Call the expiration handler of this assertion on the app's main actor, then report
    /// ``Event/expirationHandlerReturned(_:_:)``.
    case runExpirationHandler(AppID, AssertionID)
    /// Call `applicationDidEnterBackground(_:)` and post `didEnterBackgroundNotification` on the
    /// main actor, then report ``Event/didEnterBackgroundReturned(_:)``.
    case deliverDidEnterBackground(AppID)
    /// The app was launched or resumed in the background: run its launch code (or the work it
    /// was woken for) on the main actor, then report ``Event/backgroundWakeReturned(_:)``. Until
    /// then it stays in the background, where it may begin assertions.
    case deliverBackgroundWake(AppID)
    /// The app's state changed; post the matching lifecycle notification.
    case stateChanged(AppID, from: AppLifecycleState, to: AppLifecycleState)
    /// Stop the app's process from running (freeze it).
    case suspend(AppID)
    /// End the app's process cleanly with this status; the report says nothing leaked.
    case exit(AppID, status: Int32, TerminationReport)
    /// Kill the app's process and publish the report.
    case terminate(AppID, TerminationReport)
    /// The app's Background App Refresh status changed; post the change notification.
    case backgroundRefreshStatusChanged(AppID, BackgroundRefreshStatus)
    /// Deliver ``Event/tick`` at this instant (replaces any earlier request).
    case scheduleWakeup(at: Instant)
    /// No wake-up is needed any more.
    case cancelWakeup
    /// Log this record.
    case log(LogRecord)

    // MARK: Scheduling

    /// Misuse that Apple answers with a crash (an uncaught exception): raise it through the
    /// shell's fault hook with this exact message.
    case fault(AppID, message: String)
    /// Hand these tasks to the app's launch handlers, in order, as one batch (R2.16).
    case runTasks(AppID, [TaskRun])
    /// The task's time is nearly up: call its expiration handler, or, if it has none, report
    /// it completed unsuccessfully (R2.14).
    case expireTask(AppID, TaskRunID)
    /// A run ended: for logs, timelines and the usage records.
    case taskFinished(AppID, TaskRunID, TaskOutcome)
    /// Write this change to the store before answering the app.
    case persist(StoreChange)
    /// The app began (`held: true`) or ended a background mode's activity: for logs, timelines
    /// and the process shell (a daemon must not freeze a process while it holds one).
    case modeChanged(AppID, BackgroundMode, held: Bool)
    /// Low Power Mode went on or off (the device's conditions or the refresh setting): the app's
    /// `ProcessInfo.isLowPowerModeEnabled` changes and `NSProcessInfoPowerStateDidChange` is
    /// posted. Only to apps with a process.
    case powerStateChanged(AppID, lowPowerMode: Bool)
}

extension Effect {
    /// Who carries an effect out: the one list of which effects are the app's.
    public enum Audience: Sendable, Hashable {
        /// The app's runtime, in the app's process: its handlers, lifecycle callbacks and tasks
        /// (`RuntimeHost.carryOut` in BackgroundExecution interprets exactly these).
        case appRuntime
        /// The app's process itself, through its transport: it faults, or it ends.
        case appProcess
        /// The system alone: timers, the store, freezing, logs and its own bookkeeping.
        case system
    }

    /// Who carries this effect out (``Audience``).
    public var audience: Audience {
        switch self {
        case .assertionDenied, .assertionRevoked, .runExpirationHandler, .deliverDidEnterBackground,
            .deliverBackgroundWake, .stateChanged, .backgroundRefreshStatusChanged, .powerStateChanged, .runTasks,
            .expireTask, .launch:
            return .appRuntime
        case .resume, .exit, .terminate, .fault:
            return .appProcess
        case .suspend, .scheduleWakeup, .cancelWakeup, .log, .taskFinished, .persist, .modeChanged:
            return .system
        }
    }

    /// The app whose process takes part in this effect (its ``audience`` is the app's runtime
    /// or its process); `nil` for the system's own work.
    public var audienceApp: AppID? {
        audience == .system ? nil : app
    }

    /// The app this effect concerns, if any.
    public var app: AppID? {
        switch self {
        case .assertionDenied(let app, _, _), .assertionRevoked(let app, _, _), .runExpirationHandler(let app, _),
            .deliverDidEnterBackground(let app), .deliverBackgroundWake(let app), .stateChanged(let app, _, _),
            .backgroundRefreshStatusChanged(let app, _), .fault(let app, _), .runTasks(let app, _),
            .expireTask(let app, _), .launch(let app, _, _), .resume(let app, _), .exit(let app, _, _),
            .terminate(let app, _), .powerStateChanged(let app, _), .suspend(let app),
            .taskFinished(let app, _, _), .modeChanged(let app, _, _):
            return app
        case .log(let record):
            return record.app
        case .scheduleWakeup, .cancelWakeup, .persist:
            return nil
        }
    }
}
