import BackgroundCore
import BackgroundExecution
import Dispatch
import Foundation

/// The link between one process's `UIApplication` and the simulator.
///
/// Every call lands on the simulator, on the main actor, tagged with this process: an app
/// only ever reaches its own assertions, requests and tasks, and calls from a process that
/// has ended are ignored (as they could not happen on a device).
final class SimulatedConnection: SystemConnection, RuntimeHost {
    let app: AppID
    private unowned let simulator: Simulator
    /// Which of the app's processes this is: calls from an earlier one find it ended.
    private let serial: Int

    init(app: AppID, serial: Int, simulator: Simulator) {
        self.app = app
        self.serial = serial
        self.simulator = simulator
    }

    /// Runs `body` on the simulator, which lives on the main actor.
    private func onSimulator<Result: Sendable>(_ body: @MainActor (Simulator, AppProcess) -> Result) -> Result {
        MainActor.preconditionIsolated(
            "BackgroundSimulator: app code called the system off the main actor; simulated apps run on the main actor (use after(_:_:) for work over time)"
        )
        return MainActor.assumeIsolated {
            let process = simulator.processes[app].flatMap { $0.serial == serial ? $0 : nil }
            return body(simulator, process ?? simulator.endedProcess(app, serial: serial))
        }
    }

    func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        onSimulator { $0.beginAssertion($1, name: name, site: site, handler: expirationHandler) }
    }

    func endAssertion(_ id: AssertionID) {
        onSimulator { simulator, process in
            if process.isAlive { simulator.record(.appCall(process.app, .endBackgroundTask(id))) }
            simulator.fromApp(process) { .endAssertion(process.app, id) }
        }
    }

    var backgroundTimeRemaining: Duration? {
        onSimulator { simulator, process in simulator.backgroundTimeRemaining(of: process.app) }
    }

    var lifecycleState: AppLifecycleState {
        onSimulator { simulator, process in
            process.isAlive ? simulator.state(of: process.app) : .terminated(.exited(status: 0))
        }
    }

    var backgroundRefreshStatus: BackgroundRefreshStatus {
        onSimulator { simulator, process in simulator.core.backgroundRefreshStatus(of: process.app) }
    }

    func attach(_ application: UIApplication) {}

    func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    ) -> Bool {
        let registration = UncheckedSendable(RegisteredTaskHandler(queue: queue, handler: launchHandler))
        return onSimulator { $0.registerTaskHandler($1, identifier: identifier, registration.value) }
    }

    func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        let rejection = onSimulator { $0.submit($1, request) }
        if let rejection { throw BGTaskScheduler.Error(rejection: rejection) }
    }

    func cancelTaskRequest(identifier: String) {
        onSimulator { simulator, process in
            simulator.fromApp(process) { .cancelTaskRequest(process.app, identifier: identifier) }
        }
    }

    func cancelAllTaskRequests() {
        onSimulator { simulator, process in simulator.fromApp(process) { .cancelAllTaskRequests(process.app) } }
    }

    func pendingTaskRequests() -> [TaskRequest] {
        onSimulator { simulator, process in simulator.pendingRequests(of: process.app) }
    }

    func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        onSimulator { simulator, process in simulator.eligibility(of: process.app, identifier: identifier) }
    }

    func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        onSimulator { simulator, process in simulator.explanation(of: process.app, identifier: identifier) }
    }

    func simulateLaunch(forTaskWithIdentifier identifier: String) {
        onSimulator { simulator, process in
            simulator.fromApp(process) { .simulateLaunch(process.app, identifier: identifier) }
        }
    }

    func simulateExpiration(forTaskWithIdentifier identifier: String) {
        onSimulator { simulator, process in
            simulator.fromApp(process) { .simulateExpiration(process.app, identifier: identifier) }
        }
    }

    func completeTask(_ run: TaskRunID, success: Bool) {
        onSimulator { simulator, process in
            process.tables.liveTasks[run] = nil
            simulator.fromApp(process) { .completeTask(process.app, run, success: success) }
        }
    }

    func reportProgress(_ run: TaskRunID, fraction: Double) {
        onSimulator { simulator, process in
            simulator.fromApp(process) { .reportTaskProgress(process.app, run, fraction: fraction) }
        }
    }

    func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        onSimulator { simulator, process in
            simulator.fromApp(process) { .setMinimumBackgroundFetchInterval(process.app, interval) }
        }
    }

    func beginModeActivity(_ mode: BackgroundMode) -> Reply {
        onSimulator { simulator, process in
            guard process.isAlive else { return .modeNotHeld(mode, reason: "the process has ended") }
            return simulator.send(.beginModeActivity(process.app, mode))
                ?? .modeNotHeld(mode, reason: "the device is off")
        }
    }

    func endModeActivity(_ mode: BackgroundMode) {
        onSimulator { simulator, process in
            simulator.fromApp(process) { .endModeActivity(process.app, mode) }
        }
    }

    var supportsBackgroundGPU: Bool {
        onSimulator { simulator, _ in simulator.configuration.policy.scheduling.supportsBackgroundGPU }
    }

    func instant(for date: Date) -> Instant {
        // The one conversion (SystemTime): a distance from now, to the second.
        let now = onSimulator { simulator, _ in simulator.now }
        return SystemTime.instant(for: date, now: now)
    }

    func date(for instant: Instant) -> Date {
        let now = onSimulator { simulator, _ in simulator.now }
        return SystemTime.date(for: instant, now: now)
    }

    func log(_ level: LogRecord.Level, _ message: String) {
        onSimulator { simulator, process in simulator.record(.appCode(process.app, message)) }
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
        if case .granted(let id) = reply {
            if let handler { process.tables.handlers.insert(handler, for: id) }
            record(.appCall(process.app, .beginBackgroundTask(name: name, id: id)))
            return id
        }
        record(.appCall(process.app, .beginBackgroundTask(name: name, id: nil)))
        return nil
    }

    func registerTaskHandler(_ process: AppProcess, identifier: String, _ registration: RegisteredTaskHandler) -> Bool {
        guard process.isAlive else { return false }
        guard case .registered = send(.registerTaskHandler(process.app, identifier: identifier)) else { return false }
        process.tables.taskHandlers[identifier] = registration
        return true
    }

    func submit(_ process: AppProcess, _ request: TaskRequest) -> SubmissionRejection? {
        guard process.isAlive else { return nil }
        if case .rejected(_, let code) = send(.submitTaskRequest(process.app, request)) { return code }
        return nil
    }
}
