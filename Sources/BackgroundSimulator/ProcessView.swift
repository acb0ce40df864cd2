import BackgroundCore
import BackgroundExecution

/// What a simulated process's threads off the main actor know of the system, without waiting
/// for it: the state the simulator last published for the process, as a system across a
/// process boundary pushes it to an app (``GrantState``, docs/core-contract.md, "No round trip
/// for the common case").
///
/// The simulator publishes it when the process starts, before each piece of the app's code,
/// and after each event of the app and each change of its state, budget or Background App
/// Refresh status; only simulators that serve app threads do (scenario runs do not).
struct ProcessView: Sendable {
    /// What was last published: the grant state, the refresh status, Low Power Mode, the end.
    var pushed = PushedView(refreshStatus: .denied)
    /// The background modes the app's manifest declares (`UIBackgroundModes`).
    var declaredModes: Set<BackgroundMode> = []
    /// The last provisional identifier handed out (see ``ProvisionalAssertions``).
    var lastProvisional = 0

    /// The app's state, as last published.
    var lifecycleState: AppLifecycleState { pushed.lifecycleState }

    /// Decides a begin made off the main actor from the published state (the core's grant
    /// rule): a new provisional identifier, or why it is denied.
    mutating func begin(at now: Instant) -> Result<Int, Denial> {
        guard !pushed.hasEnded else { return .failure(Denial(reason: "the app is not running")) }
        guard let grant = pushed.grant.pushed else { return .failure(Denial(reason: "the app has not started")) }
        if case .deny(let reason) = grant.verdict(at: now, held: 0) { return .failure(Denial(reason: reason)) }
        lastProvisional += 1
        return .success(ProvisionalAssertions.bit | lastProvisional)
    }

    /// A mode activity begun off the main actor, answered by the core's rule
    /// (``BackgroundSystem/modeRefusal(_:state:declared:)``) on the published state; the system
    /// decides again when the begin arrives.
    func modeReply(_ mode: BackgroundMode) -> Reply {
        guard let reason = BackgroundSystem.modeRefusal(mode, state: lifecycleState, declared: declaredModes) else {
            return .modeHeld(mode)
        }
        return .modeNotHeld(mode, reason: reason)
    }

    /// Why a begin off the main actor was denied.
    struct Denial: Error {
        let reason: String
    }
}

/// Assertions begun off the main actor: the app gets a provisional identifier at once, the
/// begin reaches the system when it arrives, and the system's identifier (or its denial, which
/// calls the expiration handler) is noted here for the app's end.
///
/// Provisional identifiers have bit 31 set (below a process's tag): the core's own identifiers
/// never get there, so the two cannot collide.
enum ProvisionalAssertions {
    /// The bit that marks a provisional identifier.
    static let bit = 1 << 31

    /// Whether an identifier (without its process tag) is provisional.
    static func isProvisional(_ id: AssertionID) -> Bool {
        id.rawValue & bit != 0 && id.rawValue >> AssertionRoutes.tagShift == 0
    }
}

extension SimulatedConnection {
    /// `beginBackgroundTask` off the main actor, which must not wait for the simulator: decided
    /// from the published state; granted, the begin is sent to arrive at the simulator's next
    /// step, where the system decides again (a denial then calls the expiration handler, as an
    /// assertion that expired at once); denied, the handler is called on the main actor.
    func beginOffMain(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        let now = inbox.now
        let decision = view.withLock { $0.begin(at: now) }
        switch decision {
        case .success(let provisional):
            tell { simulator, process in
                let id = simulator.beginAssertion(process, name: name, site: site, handler: expirationHandler)
                guard process.isAlive else { return }
                process.provisionalAssertions[provisional] = .some(id)
            }
            return AssertionID(rawValue: provisional)
        case .failure(let denial):
            tell { simulator, process in
                guard process.isAlive else { return }
                simulator.record(.appCall(process.app, .beginBackgroundTask(name: name, id: nil)))
                let denied = Effect.assertionDenied(process.app, name: name, reason: denial.reason)
                simulator.record(.system(denied))
                process.connection.carryOut(denied, deniedHandler: expirationHandler)
            }
            return nil
        }
    }

    /// Publishes the process's state for its threads off the main actor.
    func publish(_ grant: GrantState, backgroundRefreshStatus: BackgroundRefreshStatus, lowPowerMode: Bool) {
        view.withLock { view in
            view.pushed.grant.update(grant)
            view.pushed.refreshStatus = backgroundRefreshStatus
            view.pushed.lowPowerMode = lowPowerMode
        }
    }

    /// The process has ended: its threads' calls are answered as an ended process's.
    func publishEnded() {
        view.withLock { $0.pushed.hasEnded = true }
    }
}

extension Simulator {
    /// The system's identifier of one the app ends: a provisional one becomes what the system
    /// gave its begin (after the begins still in the inbox arrive); `nil` if the system denied
    /// that begin (its end is expected, and quiet).
    func systemAssertion(_ process: AppProcess, for id: AssertionID) -> AssertionID? {
        guard ProvisionalAssertions.isProvisional(id) else { return id }
        if process.provisionalAssertions[id.rawValue] == nil { inbox.drain(into: self) }
        guard let entry = process.provisionalAssertions.removeValue(forKey: id.rawValue) else {
            return id  // not begun here: the system answers UIKit's message for an unknown identifier
        }
        return entry
    }

    /// Publishes a process's state for its threads off the main actor (``ProcessView``).
    func publish(_ process: AppProcess) {
        guard servesAppThreads, process.isAlive else { return }
        process.connection.publish(
            core.grantState(of: process.app, at: now),
            backgroundRefreshStatus: core.backgroundRefreshStatus(of: process.app),
            lowPowerMode: core.isLowPowerModeEnabled
        )
    }
}
