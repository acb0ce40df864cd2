import BackgroundCore
import BackgroundExecution
import BackgroundProtocol
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
    /// The app runtime's tables of this process (the same runtime users run), reachable from
    /// any of its threads; `nil` once the process has ended (it keeps nothing).
    private let tables = Mutex<RuntimeTables?>(RuntimeTables())
    /// The app's background sessions run on the simulator's virtual network.
    let transferService: (any TransferService)?
    /// The installed manifest's `UIApplicationSceneManifest`: present, the app is scene-based.
    let sceneManifest: SceneManifest?

    @MainActor init(app: AppID, serial: Int, simulator: Simulator) {
        self.app = app
        self.serial = serial
        self.simulator = simulator
        self.inbox = simulator.inbox
        self.transferService = simulator.transferSimulation.service(for: app)
        self.sceneManifest = simulator.installed.first { $0.id == app }?.manifest.sceneManifest
        self.tag = AssertionRoutes.newTag()
        let gpu = simulator.configuration.policy.scheduling.supportsBackgroundGPU
        view.withLock { $0.pushed.supportsBackgroundGPU = gpu }  // the policy's, for threads off the main actor
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
            process.connection.withTables { _ = $0.recordEnd(id) }
            if process.isAlive { simulator.record(.appCall(process.app, .endBackgroundTask(id))) }
            simulator.fromApp(process) { .endAssertion(process.app, id) }
        }
    }

    func endTagged(_ identifier: Int) {
        endAssertion(AssertionID(rawValue: identifier))
    }

    /// The app's status: the simulator's, on its main actor; what it last published, elsewhere.
    var status: AppStatus {
        answer(
            or: Self.endedStatus,
            onMain: { simulator, process in
                process.isAlive ? AppStatus(simulator.core, app: process.app, at: simulator.now) : Self.endedStatus
            },
            offMain: { view, now in view.pushed.status(at: now) }
        )
    }

    /// What an ended process (or one whose test is over) reads.
    static let endedStatus = AppStatus(
        lifecycleState: .terminated(.exited(status: 0)),
        backgroundTimeRemaining: .zero,
        refreshStatus: .denied,
        lowPowerMode: false,
        supportsBackgroundGPU: false
    )

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
        tables.withLock { tables in
            guard tables != nil else {
                var ended = RuntimeTables()  // an ended process keeps nothing
                return body(&ended)
            }
            return body(&tables!)
        }
    }

    /// Empties the tables for good: the process has ended. Returns what they held.
    @discardableResult
    func endTables() -> RuntimeTables {
        tables.withLock { tables in
            defer { tables = nil }
            return tables ?? RuntimeTables()
        }
    }

    /// The time now: the simulator's, on its main actor; the inbox's elsewhere.
    var now: Instant {
        answer(or: inbox.now, onMain: { simulator, _ in simulator.now }, offMain: { _, now in now })
    }

    /// From the main actor, to the simulator at once; from any other thread, through the inbox,
    /// without waiting. A call from an ended process is logged and ignored.
    func sendOneWay(_ event: Event) {
        tell { simulator, process in simulator.fromApp(process) { event } }
    }

    /// From the main actor, answered at once. From any other thread it cannot wait for the
    /// simulator: sent through the inbox, the reply recorded when it arrives (a rejected submit
    /// is then logged for the app, its `.reply` is in the event log), and answered for now from
    /// what the simulator last published (a background mode's begin, by the core's rule).
    func exchange(
        _ event: Event,
        recording: @escaping @Sendable (Reply?, inout RuntimeTables) -> Void
    ) -> ExchangeOutcome {
        if MainActorThread.isCurrent {
            return MainActor.assumeIsolated {
                onSimulator(or: .ended) { simulator, process in simulator.exchange(process, event, recording) }
            }
        }
        let provisional = view.withLock { view -> Reply? in
            guard case .beginModeActivity(_, let mode) = event else { return nil }
            return view.modeReply(mode)
        }
        inbox.post { [self] simulator in
            let process = process(in: simulator)
            let outcome = simulator.exchange(process, event, recording)
            guard case .answered(.rejected(_, let code)?) = outcome, case .submitTaskRequest(_, let request) = event
            else { return }
            simulator.record(
                .appCode(
                    process.app,
                    "submit(_:) of \"\(request.identifier)\" from a thread off the main actor was rejected when it arrived: \(code)"
                )
            )
        }
        return .deferred(provisional: provisional)
    }

    /// From the main actor, answered at once; from any other thread, when the question arrives
    /// on the simulator's main actor (the caller waits in its continuation or completion
    /// handler, never blocking its thread).
    func ask(_ query: AppQuery, reply: @escaping @Sendable (AppQueryAnswer?) -> Void) {
        if MainActorThread.isCurrent {
            reply(MainActor.assumeIsolated { onSimulator(or: nil) { $0.core.answer(query, of: $1.app, at: $0.now) } })
        } else {
            inbox.post { [self] simulator in reply(simulator.core.answer(query, of: app, at: simulator.now)) }
        }
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
        let id = process.connection.withTables { $0.recordBegin(reply, handler: handler) }
        record(.appCall(process.app, .beginBackgroundTask(name: name, id: id)))
        return id
    }

    /// An event of a process for the system's answer: the reply is recorded in the process's
    /// tables before anything else of the process runs.
    func exchange(
        _ process: AppProcess,
        _ event: Event,
        _ recording: @Sendable (Reply?, inout RuntimeTables) -> Void
    ) -> ExchangeOutcome {
        guard process.isAlive else { return .ended }
        guard deviceState.isOn else {
            send(event)  // notes that it was not delivered
            return .failed("the device is off")
        }
        let reply = send(event)
        process.connection.withTables { recording(reply, &$0) }
        return .answered(reply)
    }
}
