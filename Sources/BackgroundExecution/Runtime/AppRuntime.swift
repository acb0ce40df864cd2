import BackgroundCore
package import BackgroundProtocol
import Dispatch

/// A launch handler and the queue it runs on.
package struct RegisteredTaskHandler: @unchecked Sendable {
    // Apple's API calls the handler on the app's queue without Sendable; its thread-safety is
    // the app's, as on iOS.
    package let queue: DispatchQueue?
    package let handler: (BGTask) -> Void

    package init(queue: DispatchQueue?, handler: @escaping (BGTask) -> Void) {
        self.queue = queue
        self.handler = handler
    }
}

/// What the app's side of the system keeps in the app's process: the expiration handlers of its
/// assertions, its launch handlers and its live tasks. One per process incarnation: a `.launch`
/// empties it, so nothing of an ended process runs for the next.
package struct RuntimeTables: Sendable {
    /// The expiration handlers of granted assertions, by identifier. Written only in this file:
    /// a handler enters through ``recordBegin(_:handler:)``, whichever transport decided the grant.
    package private(set) var handlers = ExpirationHandlerTable()
    /// The launch handlers registered in this process, by task identifier. Written only in this
    /// file: a handler enters through ``recordRegistration(_:identifier:_:)``, whichever
    /// transport asked the system.
    package private(set) var taskHandlers: [String: RegisteredTaskHandler] = [:]
    /// The tasks handed to the app and not completed yet.
    package var liveTasks: [TaskRunID: UncheckedSendable<BGTask>] = [:]
    /// The background modes whose activity the system granted and the app has not ended: what
    /// a transport declares again to a system that restarted.
    package var heldModes: Set<BackgroundMode> = []
    /// The process's application object (`attach`), which receives lifecycle callbacks and
    /// notifications; held weakly, as the process holds it. A new incarnation keeps it.
    package weak var application: UIApplication?

    package init() {}

    /// Records a begin's answer: the one place a granted assertion's expiration handler enters
    /// the tables, whichever side decided the grant (the core in this process, on its fast path
    /// or its full one; the grant state the system pushed, for a begin sent one way; the
    /// simulator's system). Returns the granted identifier, `nil` for a denial.
    @inline(__always)
    package mutating func recordBegin(
        _ granted: AssertionID?,
        handler: ExpirationHandlerTable.Handler?
    ) -> AssertionID? {
        if let granted, let handler { handlers.insert(handler, for: granted) }
        return granted
    }

    /// Records a begin answered by the system with a reply (`.granted` or `.denied`).
    package mutating func recordBegin(_ reply: Reply?, handler: ExpirationHandlerTable.Handler?) -> AssertionID? {
        guard case .granted(let id) = reply else { return nil }
        return recordBegin(id, handler: handler)
    }

    /// Records a registration's answer: the one place a launch handler enters the tables,
    /// whichever side asked the system (the core in this process, the simulator's system, the
    /// daemon). Only a `.registered` reply records it; a refusal (`.refused`) or a misuse the
    /// system faults on (`nil`) leaves the tables as they were. Returns whether it was recorded.
    @discardableResult
    package mutating func recordRegistration(
        _ reply: Reply?,
        identifier: String,
        _ registration: RegisteredTaskHandler
    ) -> Bool {
        guard case .registered = reply else { return false }
        taskHandlers[identifier] = registration
        return true
    }

    /// Forgets an ended assertion's handler (the app ended it); returns it, if it had one.
    @discardableResult
    package mutating func recordEnd(_ id: AssertionID) -> ExpirationHandlerTable.Handler? {
        handlers.remove(id)
    }

    /// Forgets everything (a new incarnation starts, or the process ended).
    package mutating func removeAll() {
        handlers.removeAll()
        taskHandlers.removeAll()
        liveTasks.removeAll()
        heldModes.removeAll()
    }
}

/// A transport under the app runtime: how the runtime reaches the system and the app's threads.
///
/// The embedded system (the core in this process), the simulator (the core on a virtual phone)
/// and the daemon's client each implement it. The rules of the app's side are written once:
/// effects become callbacks in ``RuntimeHost/carryOut(_:deniedHandler:)``, and Apple's calls
/// become events in `AppRuntime+Calls.swift`, which a transport only moves: one way
/// (``sendOneWay(_:)``), for an answer (``exchange(_:recording:)``) or as a question
/// (``ask(_:reply:)``), the shape of the wire protocol's `oneWay`, `event` and `query`.
package protocol RuntimeHost: SystemConnection {
    /// The time now on the system's clock (the boot clock, or virtual time).
    var now: Instant { get }

    /// The app's status as the system sees it now (from the core in this process, or from what
    /// the system pushed).
    var status: AppStatus { get }

    /// Sends an app event that nothing waits for, in the order of the calls. A transport that
    /// cannot deliver it (no connection, an ended process) drops it or keeps it for later, as
    /// its own documentation says.
    func sendOneWay(_ event: Event)

    /// Sends an app event for the system's answer. `recording` takes the reply into the tables
    /// of the app's process atomically with its arrival, before the answer's effects are carried
    /// out (a registered handler must be there when its first task is handed over).
    func exchange(
        _ event: Event,
        recording: @escaping @Sendable (Reply?, inout RuntimeTables) -> Void
    ) -> ExchangeOutcome

    /// Asks the system a question about the app's requests; `reply` gets the answer (`nil` when
    /// none came): before this returns where the transport can wait for it on the caller's
    /// thread, later (on another thread) where it cannot.
    func ask(_ query: AppQuery, reply: @escaping @Sendable (AppQueryAnswer?) -> Void)

    /// Runs `body` on the tables of the app's current process, under whatever protects them.
    func withTables<Result: Sendable>(_ body: (inout RuntimeTables) -> Result) -> Result

    /// Runs app code on the app's main actor, after what is queued there; then, when `report`
    /// is given, tells the system the callback returned (once the app's main thread is free).
    func runOnMainActor(_ job: @escaping @MainActor @Sendable () -> Void, report: Event?)

    /// Runs a launch handler or a task's expiration handler: on `queue` where the transport
    /// honours queues, else where it runs app code.
    func runTaskCode(on queue: DispatchQueue?, _ job: @escaping @Sendable () -> Void)

    /// The app's launch callbacks (`didFinishLaunching`) were delivered.
    func launchCallbacksDelivered()
}

extension RuntimeHost {
    /// Records the application object that receives the app's callbacks (`UIApplication`'s
    /// initialiser calls it).
    public func attach(_ application: UIApplication) {
        withTables { $0.application = application }
    }

    /// The process's application object, if it has one (an ended process has none).
    package var runtimeApplication: UIApplication? { withTables { $0.application } }

    /// The one interpreter of effects addressed to the app's process. Returns `false` for an
    /// effect that is the transport's own business (suspension, termination, timers, the store).
    ///
    /// - Parameter deniedHandler: The expiration handler of the begin this effect answers, which
    ///   `.assertionDenied` calls (S2).
    @discardableResult
    package func carryOut(_ effect: Effect, deniedHandler: (@MainActor @Sendable () -> Void)? = nil) -> Bool {
        switch effect {
        case .assertionDenied:
            // S2: "If the system is unable to grant the task assertion, it calls your expiration handler."
            if let deniedHandler { runOnMainActor(deniedHandler, report: nil) }
        case .assertionRevoked(_, let id, _):
            // Granted by the runtime, revoked by the system on arrival: to the app, an assertion
            // that expired at once. Its end is accepted quietly.
            let handler = withTables { $0.recordEnd(id) }
            if let handler { runOnMainActor(handler, report: nil) }
        case .runExpirationHandler(let app, let id):
            let handler = withTables { $0.recordEnd(id) }
            runOnMainActor({ handler?() }, report: .expirationHandlerReturned(app, id))
        case .deliverDidEnterBackground(let app):
            let application = runtimeApplication
            runOnMainActor({ application?.deliverDidEnterBackground() }, report: .didEnterBackgroundReturned(app))
        case .deliverBackgroundWake(let app):
            let application = runtimeApplication
            runOnMainActor(
                { [self] in
                    application?.deliverBackgroundWake()
                    launchCallbacksDelivered()
                },
                report: .backgroundWakeReturned(app)
            )
        case .stateChanged(_, let from, let to):
            deliverTransition(from: from, to: to)
        case .backgroundRefreshStatusChanged:
            let application = runtimeApplication
            runOnMainActor({ application?.deliverBackgroundRefreshStatusChange() }, report: nil)
        case .powerStateChanged:
            ProcessInfo.postPowerStateChange()
        case .runTasks(_, let runs):
            for run in runs { start(run) }
        case .expireTask(_, let id):
            expire(id)
        case .launch:
            withTables { $0.removeAll() }  // a new incarnation: nothing of the last one runs
        default:
            return false
        }
        return true
    }

    /// Posts the notifications (and calls the delegate) of a lifecycle change. A suspended
    /// process runs nothing; a launch into the foreground ends with the launch callbacks.
    private func deliverTransition(from: AppLifecycleState, to: AppLifecycleState) {
        guard to != .suspended else { return }
        let application = runtimeApplication
        if !from.hasProcess {
            guard to.isForeground else { return }  // a background launch: deliverBackgroundWake
            runOnMainActor(
                { [self] in
                    application?.deliverTransition(from: from, to: to)
                    launchCallbacksDelivered()
                },
                report: nil
            )
            return
        }
        runOnMainActor({ application?.deliverTransition(from: from, to: to) }, report: nil)
    }

    /// Hands a run to its launch handler (or, for a fetch, the delegate).
    private func start(_ run: TaskRun) {
        if run.request.kind == .remoteNotification {
            let application = runtimeApplication
            let completion = FetchCompletion(connection: self, run: run.id)
            let payload = run.request.payload
            runOnMainActor(
                {
                    if let application, let delegate = application.delegate {
                        let userInfo = RemoteNotificationPayload.userInfo(fromJSON: payload)
                        delegate.application(
                            application,
                            didReceiveRemoteNotification: userInfo,
                            fetchCompletionHandler: completion.call
                        )
                    } else {
                        completion.call(.noData)
                    }
                },
                report: nil
            )
            return
        }
        if run.request.kind == .fetch {
            let application = runtimeApplication
            let completion = FetchCompletion(connection: self, run: run.id)
            runOnMainActor(
                {
                    if let application, let delegate = application.delegate {
                        delegate.application(application, performFetchWithCompletionHandler: completion.call)
                    } else {
                        completion.call(.noData)
                    }
                },
                report: nil
            )
            return
        }
        let task = UncheckedSendable(BGTask.make(for: run, connection: self))
        let registration = withTables { tables -> RegisteredTaskHandler? in
            tables.liveTasks[run.id] = task
            return tables.taskHandlers[run.request.identifier]
        }
        guard let registration else { return }  // the core faulted already: no handler
        runTaskCode(on: registration.queue) { registration.handler(task.value) }
    }

    /// Calls the task's expiration handler on its queue, or, without one, completes it
    /// unsuccessfully (R2.14). Fetch has no expiration handler: its completion handler is due.
    private func expire(_ id: TaskRunID) {
        let found = withTables { tables -> (UncheckedSendable<BGTask>, DispatchQueue?)? in
            guard let task = tables.liveTasks[id] else { return nil }
            return (task, tables.taskHandlers[task.value.identifier]?.queue)
        }
        guard let (task, queue) = found else { return }
        let handler = task.value.takeExpirationHandler()
        runTaskCode(on: queue) {
            if let run = handler.value {
                run()
            } else {
                task.value.setTaskCompleted(success: false)
            }
        }
    }

    /// Records a registered launch handler, if the system registered it
    /// (``RuntimeTables/recordRegistration(_:identifier:_:)`` on the transport's tables).
    package func recordRegistration(
        _ reply: Reply?,
        identifier: String,
        _ registration: RegisteredTaskHandler
    )
        -> Bool
    {
        withTables { $0.recordRegistration(reply, identifier: identifier, registration) }
    }

    /// Forgets a completed task.
    package func forgetTask(_ run: TaskRunID) {
        withTables { _ = $0.liveTasks.removeValue(forKey: run) }
    }
}
