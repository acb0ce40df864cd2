import BackgroundCore

/// The app's side of "no round trip for the common case": the grant state the system last
/// pushed, and the assertion identifiers this process allocates from it (docs/core-contract.md).
///
/// A transport to a system in another process answers `beginBackgroundTask` from here, at once:
/// granted, it returns the next identifier and sends the begin one way
/// (``Event/assertionBegun(_:_:name:origin:hasExpirationHandler:)``); denied, it calls the
/// expiration handler and sends nothing. The system applies the same rule when the begin
/// arrives, and revokes what it would not have granted (``Effect/assertionRevoked(_:_:reason:)``).
package struct AppSideGrant: Sendable {
    /// The state the system pushed last; `nil` before the first push (nothing is granted then).
    package private(set) var pushed: GrantState?
    /// The identifier the next granted begin takes.
    package private(set) var next = AssertionID(rawValue: 1)

    package init() {}

    /// Takes a pushed state. A new incarnation allocates from the system's next identifier;
    /// within one, allocation never goes back (begins the system has not seen yet took some).
    package mutating func update(_ state: GrantState) {
        // A pushed identifier past the system's limit would make the next `+ 1` overflow: the
        // limit is the most a system issues from, so it is taken as that.
        let pushedNext = AssertionID(rawValue: min(state.nextAssertionID.rawValue, AssertionLedger.identifierLimit))
        if pushed?.incarnation != state.incarnation || pushedNext > next {
            next = pushedNext
        }
        pushed = state
    }

    /// Decides a begin: the identifier to return, or why it is denied.
    ///
    /// The outstanding count is the system's to check when the begin arrives (one too many ends
    /// the app there, as in-process), so a begin the rule would end the app for is granted here.
    package mutating func begin(at now: Instant) -> Result<AssertionID, GrantDenial> {
        guard let pushed else { return .failure(GrantDenial(reason: "the system has not answered this process yet")) }
        if case .deny(let reason) = pushed.verdict(at: now, held: 0) { return .failure(GrantDenial(reason: reason)) }
        let id = next
        next = AssertionID(rawValue: id.rawValue + 1)
        return .success(id)
    }
}

/// Why the app's runtime denied a begin from the pushed state.
package struct GrantDenial: Error, Sendable, Hashable {
    /// The grant rule's reason, as the core would give it.
    package let reason: String
}

/// What a system in another process (or the simulator, for a process's threads off its main
/// actor) last pushed to the app's side, and what the app's calls read from it without a round
/// trip: the grant state with the identifiers allocated from it, the Background App Refresh
/// status, Low Power Mode, and whether the process has ended.
package struct PushedView: Sendable {
    /// The grant state and the identifiers the app's side allocates from it.
    package var grant = AppSideGrant()
    /// The Background App Refresh status as last pushed.
    package var refreshStatus: BackgroundRefreshStatus
    /// Low Power Mode as last pushed.
    package var lowPowerMode = false
    /// Whether the process has ended (an object of an ended simulated process still answers).
    package var hasEnded = false
    /// Whether the device supports background GPU use, as the system said.
    package var supportsBackgroundGPU = false

    /// A view before anything was pushed, answering `refreshStatus` for the refresh status.
    package init(refreshStatus: BackgroundRefreshStatus) {
        self.refreshStatus = refreshStatus
    }

    /// The app's state as last pushed: not running before the first push, terminated once ended.
    package var lifecycleState: AppLifecycleState {
        if hasEnded { return .terminated(.exited(status: 0)) }
        return grant.pushed?.lifecycleState ?? .notRunning
    }

    /// `backgroundTimeRemaining` at `now`, by the one rule (``GrantState/backgroundTimeRemaining(state:budget:)``).
    package func backgroundTimeRemaining(at now: Instant) -> Duration? {
        GrantState.backgroundTimeRemaining(state: lifecycleState) { grant.pushed?.budgetRemaining(at: now) ?? .zero }
    }
}

/// What the app's calls read of the system's view of it, at one instant: `applicationState`,
/// `backgroundTimeRemaining`, `backgroundRefreshStatus`, `isLowPowerModeEnabled` and the GPU
/// among `BGTaskScheduler.supportedResources` come from one reading (``RuntimeHost/status``).
package struct AppStatus: Sendable, Hashable {
    /// The app's lifecycle state.
    package var lifecycleState: AppLifecycleState
    /// The background time left (``GrantState/backgroundTimeRemaining(state:budget:)``).
    package var backgroundTimeRemaining: Duration?
    /// The app's Background App Refresh status.
    package var refreshStatus: BackgroundRefreshStatus
    /// Whether Low Power Mode is on.
    package var lowPowerMode: Bool
    /// Whether the device supports background GPU use (`BGTaskScheduler.supportedResources`).
    package var supportsBackgroundGPU: Bool

    package init(
        lifecycleState: AppLifecycleState,
        backgroundTimeRemaining: Duration?,
        refreshStatus: BackgroundRefreshStatus,
        lowPowerMode: Bool,
        supportsBackgroundGPU: Bool
    ) {
        self.lifecycleState = lifecycleState
        self.backgroundTimeRemaining = backgroundTimeRemaining
        self.refreshStatus = refreshStatus
        self.lowPowerMode = lowPowerMode
        self.supportsBackgroundGPU = supportsBackgroundGPU
    }

    /// An app's status as the core in this process sees it.
    package init(_ core: BackgroundSystem, app: AppID, at now: Instant) {
        self.init(
            lifecycleState: core.state(of: app),
            backgroundTimeRemaining: core.backgroundTimeRemaining(of: app, at: now),
            refreshStatus: core.backgroundRefreshStatus(of: app),
            lowPowerMode: core.isLowPowerModeEnabled,
            supportsBackgroundGPU: core.policy.scheduling.supportsBackgroundGPU
        )
    }
}

extension PushedView {
    /// The app's status from what was pushed, at `now`.
    package func status(at now: Instant) -> AppStatus {
        AppStatus(
            lifecycleState: lifecycleState,
            backgroundTimeRemaining: backgroundTimeRemaining(at: now),
            refreshStatus: refreshStatus,
            lowPowerMode: lowPowerMode,
            supportsBackgroundGPU: supportsBackgroundGPU
        )
    }
}
