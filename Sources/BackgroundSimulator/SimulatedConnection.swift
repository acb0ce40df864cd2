import BackgroundCore
import BackgroundExecution
import Dispatch
import Foundation
import Synchronization

/// The link between one process's `UIApplication` and the simulator.
///
/// Every call lands on the simulator, on the main actor, tagged with this process: an app
/// only ever reaches its own assertions, requests and tasks, and calls from a process that
/// has ended are ignored (as they could not happen on a device). Calls from the main actor
/// are applied at once. Calls from any other thread (Apple allows most from any) never wait
/// for the main actor: they go through the simulator's ``CallInbox`` and are applied at the
/// virtual instant they arrive, and what they answer comes from what the simulator last
/// published for this process (``ProcessView``), as an app across a process boundary answers
/// from the state its system pushed (docs/core-contract.md).
///
/// The identifiers its app sees carry a tag unique in the test process (``AssertionRoutes``),
/// so an `endBackgroundTask(_:)` made where the app cannot be told still reaches this app.
final class SimulatedConnection: SystemConnection, RuntimeHost, AssertionRoutes.Tagging {
    let app: AppID
    private unowned let simulator: Simulator
    /// Where its calls off the main actor wait for the simulator.
    let inbox: CallInbox
    /// Which of the app's processes this is: calls from an earlier one find it ended.
    private let serial: Int
    /// The high bits of this process's identifiers.
    private let tag: Int
    /// What the simulator last published for this process: its calls off the main actor read it.
    let view = Mutex(ProcessView())
    let supportsBackgroundGPU: Bool
    /// The app's background sessions run on the simulator's virtual network.
    let transferService: (any TransferService)?

    @MainActor init(app: AppID, serial: Int, simulator: Simulator) {
        self.app = app
        self.serial = serial
        self.simulator = simulator
        self.inbox = simulator.inbox
        self.supportsBackgroundGPU = simulator.configuration.policy.scheduling.supportsBackgroundGPU
        self.transferService = simulator.transferSimulation.service(for: app)
        self.tag = AssertionRoutes.newTag()
        AssertionRoutes.register(self, tag: tag)
    }

    deinit {
        AssertionRoutes.remove(tag)
    }

    /// The process this connection belongs to, or a stand-in for an ended one.
    @MainActor func process(in simulator: Simulator) -> AppProcess {
        simulator.processes[app].flatMap { $0.serial == serial ? $0 : nil }
            ?? simulator.endedProcess(app, serial: serial)
    }

    /// Runs `body` on the simulator, from the main actor; `fallback` once the test is over.
    @MainActor private func onSimulator<Result>(
        or fallback: Result,
        _ body: (Simulator, AppProcess) -> Result
    ) -> Result {
        guard let simulator = inbox.simulator else { return fallback }
        return body(simulator, process(in: simulator))
    }

    /// Tells the simulator something that needs no answer: at once from the main actor, else
    /// through the inbox, without waiting.
    func tell(_ body: @escaping @MainActor @Sendable (Simulator, AppProcess) -> Void) {
        if MainActorThread.isCurrent {
            MainActor.assumeIsolated { onSimulator(or: ()) { body($0, $1) } }
        } else {
            inbox.post { [self] simulator in body(simulator, process(in: simulator)) }
        }
    }

    /// A call that answers: from the main actor, the simulator answers it; from any other thread,
    /// `offMain` answers it from this process's published view, without waiting.
    private func answer<Result: Sendable>(
        or fallback: Result,
        onMain: @MainActor (Simulator, AppProcess) -> Result,
        offMain: (ProcessView, Instant) -> Result
    ) -> Result {
        if MainActorThread.isCurrent {
            return MainActor.assumeIsolated { onSimulator(or: fallback, onMain) }
        }
        let now = inbox.now
        return view.withLock { offMain($0, now) }
    }

    /// The identifier the app sees for one of the system's (or a provisional one): tagged with
    /// this process.
    private func visible(_ id: AssertionID) -> AssertionID {
        guard id.rawValue >> AssertionRoutes.tagShift == 0 else { return id }  // too large to tag
        return AssertionID(rawValue: tag << AssertionRoutes.tagShift | id.rawValue)
    }

    /// The identifier an app handed back, without this process's tag; another's stays unknown.
    private func untagged(_ id: AssertionID) -> AssertionID {
        guard AssertionRoutes.tag(of: id.rawValue) == tag else { return id }
        return AssertionID(rawValue: id.rawValue & (1 << AssertionRoutes.tagShift - 1))
    }

    func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        if MainActorThread.isCurrent {
            let id = MainActor.assumeIsolated {
                onSimulator(or: nil) { $0.beginAssertion($1, name: name, site: site, handler: expirationHandler) }
            }
            return id.map(visible)
        }
        return beginOffMain(named: name, at: site, expirationHandler: expirationHandler).map(visible)
    }

    func endAssertion(_ id: AssertionID) {
        let id = untagged(id)
        tell { simulator, process in
            guard let id = simulator.systemAssertion(process, for: id) else { return }  // revoked on arrival
            process.tables.recordEnd(id)
            if process.isAlive { simulator.record(.appCall(process.app, .endBackgroundTask(id))) }
            simulator.fromApp(process) { .endAssertion(process.app, id) }
        }
    }

    func endTagged(_ identifier: Int) {
        endAssertion(AssertionID(rawValue: identifier))
    }

    var backgroundTimeRemaining: Duration? {
        answer(
            or: nil,
            onMain: { $0.backgroundTimeRemaining(of: $1.app) },
            offMain: { view, now in view.backgroundTimeRemaining(at: now) }
        )
    }

    var lifecycleState: AppLifecycleState {
        answer(
            or: .terminated(.exited(status: 0)),
            onMain: { $1.isAlive ? $0.state(of: $1.app) : .terminated(.exited(status: 0)) },
            offMain: { view, _ in view.lifecycleState }
        )
    }

    var backgroundRefreshStatus: BackgroundRefreshStatus {
        answer(
            or: .denied,
            onMain: { $0.core.backgroundRefreshStatus(of: $1.app) },
            offMain: { view, _ in view.backgroundRefreshStatus }
        )
    }

    var isLowPowerModeEnabled: Bool {
        answer(
            or: false,
            onMain: { simulator, _ in simulator.core.isLowPowerModeEnabled },
            offMain: { view, _ in view.lowPowerMode }
        )
    }

    func attach(_ application: UIApplication) {}

    func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        let registration = UncheckedSendable(RegisteredTaskHandler(queue: queue, handler: launchHandler))
        if MainActorThread.isCurrent {
            return MainActor.assumeIsolated {
                onSimulator(or: false) { $0.registerTaskHandler($1, identifier: identifier, registration.value) }
            }
        }
        // Off the main actor it cannot wait for the answer: registered when it arrives (the
        // system's own faults, such as a registration after launch, are raised then).
        inbox.post { [self] simulator in
            _ = simulator.registerTaskHandler(process(in: simulator), identifier: identifier, registration.value)
        }
        return true
    }

    func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        if MainActorThread.isCurrent {
            let rejection = MainActor.assumeIsolated { onSimulator(or: nil) { $0.submit($1, request) } }
            if let rejection { throw BGTaskScheduler.Error(rejection: rejection) }
            return
        }
        // Off the main actor it cannot wait for the system's answer: submitted when it arrives,
        // and a rejection then is logged for the app (its `.reply` is in the event log).
        inbox.post { [self] simulator in
            let process = process(in: simulator)
            guard let rejection = simulator.submit(process, request) else { return }
            simulator.record(
                .appCode(
                    process.app,
                    "submit(_:) of \"\(request.identifier)\" from a thread off the main actor was rejected when it arrived: \(rejection)"
                )
            )
        }
    }

    func cancelTaskRequest(identifier: String) {
        tell { simulator, process in
            simulator.fromApp(process) { .cancelTaskRequest(process.app, identifier: identifier) }
        }
    }

    func cancelAllTaskRequests() {
        tell { simulator, process in simulator.fromApp(process) { .cancelAllTaskRequests(process.app) } }
    }

    func pendingTaskRequests() -> [TaskRequest] {
        answer(
            or: [],
            onMain: { $0.pendingRequests(of: $1.app) },
            offMain: { _, _ in
                refuseOffMain("pendingTaskRequests()")
                return []
            }
        )
    }

    func pendingTaskRequests(reply: @escaping @Sendable ([TaskRequest]) -> Void) {
        if MainActorThread.isCurrent {
            reply(MainActor.assumeIsolated { onSimulator(or: []) { $0.pendingRequests(of: $1.app) } })
        } else {
            // Answered when the call arrives on the simulator's main actor; the caller waits in
            // its continuation or completion handler, never blocking its thread.
            inbox.post { [self] simulator in reply(simulator.pendingRequests(of: process(in: simulator).app)) }
        }
    }

    func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        answer(
            or: nil,
            onMain: { $0.eligibility(of: $1.app, identifier: identifier) },
            offMain: { _, _ in
                refuseOffMain("eligibility(forTaskWithIdentifier:)")
                return nil
            }
        )
    }

    func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        answer(
            or: nil,
            onMain: { $0.explanation(of: $1.app, identifier: identifier) },
            offMain: { _, _ in
                refuseOffMain("explanation(forTaskWithIdentifier:)")
                return nil
            }
        )
    }

    /// A call of ours (no Apple API) that needs the simulator's whole state: in the simulator,
    /// main actor only; elsewhere it would have to wait for the main actor.
    private func refuseOffMain(_ call: String) {
        let fault = BackgroundFault(
            api: call,
            message:
                "called off the main actor in the simulator, where it would have to wait for the main actor; "
                + "call it from the app's main-actor code",
            app: app
        )
        inbox.post { $0.raise(fault) }
    }

    func simulateLaunch(forTaskWithIdentifier identifier: String) {
        tell { simulator, process in
            simulator.fromApp(process) { .simulateLaunch(process.app, identifier: identifier) }
        }
    }

    func simulateExpiration(forTaskWithIdentifier identifier: String) {
        tell { simulator, process in
            simulator.fromApp(process) { .simulateExpiration(process.app, identifier: identifier) }
        }
    }

    func completeTask(_ run: TaskRunID, success: Bool) {
        tell { simulator, process in
            process.tables.liveTasks[run] = nil
            simulator.fromApp(process) { .completeTask(process.app, run, success: success) }
        }
    }

    func reportProgress(_ run: TaskRunID, fraction: Double) {
        tell { simulator, process in
            simulator.fromApp(process) { .reportTaskProgress(process.app, run, fraction: fraction) }
        }
    }

    func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        tell { simulator, process in
            simulator.fromApp(process) { .setMinimumBackgroundFetchInterval(process.app, interval) }
        }
    }

    func beginModeActivity(_ mode: BackgroundMode) -> Reply {
        if MainActorThread.isCurrent {
            return MainActor.assumeIsolated {
                onSimulator(or: .modeNotHeld(mode, reason: "the process has ended")) { simulator, process in
                    guard process.isAlive else { return .modeNotHeld(mode, reason: "the process has ended") }
                    return simulator.send(.beginModeActivity(process.app, mode))
                        ?? .modeNotHeld(mode, reason: "the device is off")
                }
            }
        }
        // Off the main actor: answered from the published state; the begin arrives at the next
        // step, where the system decides again (and logs its answer).
        tell { simulator, process in
            guard process.isAlive else { return }
            simulator.send(.beginModeActivity(process.app, mode))
        }
        return view.withLock { $0.modeReply(mode) }
    }

    func endModeActivity(_ mode: BackgroundMode) {
        tell { simulator, process in
            simulator.fromApp(process) { .endModeActivity(process.app, mode) }
        }
    }

    func instant(for date: Date) -> Instant {
        // The one conversion (SystemTime): a distance from now, to the second.
        let now = answer(or: inbox.now, onMain: { simulator, _ in simulator.now }, offMain: { _, now in now })
        return SystemTime.instant(for: date, now: now)
    }

    func date(for instant: Instant) -> Date {
        let now = answer(or: inbox.now, onMain: { simulator, _ in simulator.now }, offMain: { _, now in now })
        return SystemTime.date(for: instant, now: now)
    }

    func log(_ level: LogRecord.Level, _ message: String) {
        tell { simulator, process in simulator.record(.appCode(process.app, message)) }
    }

    func raise(_ fault: BackgroundFault) {
        tell { simulator, _ in simulator.raise(fault) }
    }
}

// MARK: The app runtime's transport

extension SimulatedConnection {
    /// The live process this connection belongs to, if it has not ended.
    @MainActor private var liveProcess: AppProcess? {
        simulator.processes[app].flatMap { $0.serial == serial && $0.isAlive ? $0 : nil }
    }

    func withTables<Result: Sendable>(_ body: (inout RuntimeTables) -> Result) -> Result {
        guard let process = MainActor.assumeIsolated({ liveProcess }) else {
            var ended = RuntimeTables()  // an ended process keeps nothing
            return body(&ended)
        }
        var tables = MainActor.assumeIsolated { process.takeTables() }
        defer { MainActor.assumeIsolated { [tables] in process.tables = tables } }
        return body(&tables)
    }

    var runtimeApplication: UIApplication? {
        MainActor.assumeIsolated { liveProcess?.application }
    }

    func runOnMainActor(_ job: @escaping @MainActor @Sendable () -> Void, report: Event?) {
        MainActor.assumeIsolated {
            guard let process = liveProcess else { return }
            simulator.runOnMainActor(of: process, returning: report, job)
        }
    }

    func runTaskCode(on queue: DispatchQueue?, _ job: @escaping @Sendable () -> Void) {
        // Launch handlers run on the main actor whatever queue they named: one thread keeps
        // the run deterministic.
        MainActor.assumeIsolated {
            guard let process = liveProcess else { return }
            simulator.schedule(at: simulator.now, .app(process, job))
        }
    }

    func launchCallbacksDelivered() {
        MainActor.assumeIsolated {
            guard let process = liveProcess else { return }
            simulator.finishLaunching(process)
        }
    }
}

extension Simulator {
    /// Sends an event on behalf of a process, unless the process has ended.
    func fromApp(_ process: AppProcess, _ event: () -> Event) {
        guard process.isAlive else {
            record(.appCode(process.app, "a call from an ended process was ignored"))
            return
        }
        send(event())
    }

    func beginAssertion(
        _ process: AppProcess,
        name: String,
        site: CallSite,
        handler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        guard process.isAlive else { return nil }
        deniedHandler = handler
        let reply = send(.beginAssertion(process.app, name: name, origin: site, hasExpirationHandler: handler != nil))
        deniedHandler = nil
        let id = process.tables.recordBegin(reply, handler: handler)
        record(.appCall(process.app, .beginBackgroundTask(name: name, id: id)))
        return id
    }

    func registerTaskHandler(_ process: AppProcess, identifier: String, _ registration: RegisteredTaskHandler) -> Bool {
        guard process.isAlive else { return false }
        let reply = send(.registerTaskHandler(process.app, identifier: identifier))
        return process.tables.recordRegistration(reply, identifier: identifier, registration)
    }

    func submit(_ process: AppProcess, _ request: TaskRequest) -> SubmissionRejection? {
        guard process.isAlive else { return nil }
        if case .rejected(_, let code) = send(.submitTaskRequest(process.app, request)) { return code }
        return nil
    }
}
