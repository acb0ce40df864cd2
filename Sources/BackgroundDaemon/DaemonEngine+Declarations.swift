import BackgroundCore
import BackgroundProtocol

extension DaemonEngine {
    /// Takes over an app's process that declares what it holds (its hello's
    /// ``AppDeclaration``): the daemon restarted under it, so the core has no record of it.
    ///
    /// The process is launched in the core in the state it declares, and the declaration is
    /// applied (``apply(_:to:alreadyRegistered:)``). The callbacks the launch would ask of the
    /// app (`didFinishLaunching`, the background wake) ran in this process long ago, so the
    /// daemon answers them itself: the app is never ended for a gap its restart caused. The
    /// caller holds the app in `connecting` (its `.launch` is this process, not a spawn) and
    /// collects the effects in `awaitingConnection`.
    ///
    /// A declaration says what the process holds, not where the user is: only the user brings
    /// an app to the foreground. A process that declares the foreground keeps its place there
    /// only while no other app is in it (the user was using it when the daemon went away);
    /// otherwise it is taken over in the background, and the app in the foreground stays.
    func takeOver(_ app: AppID, declaring declaration: AppDeclaration) {
        let foregroundTaken = state.withLock { anotherAppInForeground(besides: app, in: $0) }
        let background = !declaration.lifecycleState.isForeground || foregroundTaken
        deliver(.launch(app, background ? .background : .foreground))
        if !background, declaration.lifecycleState == .active { deliver(.activate(app)) }
        apply(declaration, to: app, alreadyRegistered: [], finishing: declaration.launchFinished)
        if background { deliver(.backgroundWakeReturned(app)) }
        let place = background && declaration.lifecycleState.isForeground ? "; another app is in the foreground" : ""
        logger.notice("\(app): its process connected again and was taken over (\(summary(of: declaration))\(place))")
    }

    /// Whether an app other than `app` is in the foreground.
    func anotherAppInForeground(besides app: AppID, in state: State) -> Bool {
        state.installed.keys.contains { $0 != app && state.core.state(of: $0).isForeground }
    }

    /// Why a hello's declaration is refused, if it is: a process that is not the adopted one
    /// claims to be it, or the app was force-quit. A force-quit app runs again only when the
    /// user opens it (S10), and a declaration is not the user: its process is not served (the
    /// daemon cannot end a process it did not start; the core never launches a force-quit app
    /// in the background either).
    func declarationRefusal(
        _ app: AppID,
        _ declaration: AppDeclaration?,
        peer: PeerIdentity?,
        running: Bool,
        in state: State
    ) -> DaemonRefusal? {
        guard declaration != nil else { return nil }
        if running, adoptedDeclarant(app, peer: peer, in: state) == nil {
            return DaemonRefusal(.notTheApp, "\(app)'s process is another one (the one carried on after the restart)")
        }
        if !running, state.core.isForceQuit(app) {
            return DaemonRefusal(
                .notPermitted,
                "\(app) was force-quit: it runs again when the user opens it, not from a declaration"
            )
        }
        return nil
    }

    /// Applies the declaration of a process the previous run started, which this run adopted
    /// (`DaemonEngine+Restart.swift`) and which connected again: its handlers registered for
    /// identifiers beyond those registered at the adoption, its assertions under its own
    /// identifiers, its modes; within the restart grace also its place in the foreground (when
    /// no other app took it meanwhile), and then its background wake returns, so it settles
    /// on what it declared. The caller checked that the declaration comes from the adopted
    /// process (``adoptedDeclarant(_:peer:in:)``) and collects the effects in
    /// `awaitingConnection`.
    func applyAdopted(_ app: AppID, declaring declaration: AppDeclaration) {
        let (inGrace, foregroundTaken) = state.withLock { state in
            (inRestartGrace(app, in: state), anotherAppInForeground(besides: app, in: state))
        }
        if inGrace, declaration.lifecycleState.isForeground, !foregroundTaken {
            deliver(.enterForeground(app))
            if declaration.lifecycleState == .active { deliver(.activate(app)) }
        }
        // Its launch finished at the adoption.
        apply(declaration, to: app, alreadyRegistered: Set(preregistered(app)), finishing: false)
        if inGrace {
            state.withLock { _ = $0.restartGraces.removeValue(forKey: app) }
            deliver(.backgroundWakeReturned(app))  // ignored, as late, if it went to the foreground
        }
        logger.notice("\(app): the process it carried on connected again and declared \(summary(of: declaration))")
    }

    /// The one place a declaration reaches the core, for both kinds of process: its handlers
    /// (those not in `alreadyRegistered`), its assertions under the identifiers its code holds
    /// (a gap in the identifiers is allowed; one that is not new is refused and logged), its
    /// modes, and, with `finishing`, the end of its launch.
    private func apply(
        _ declaration: AppDeclaration,
        to app: AppID,
        alreadyRegistered: Set<String>,
        finishing: Bool
    ) {
        for identifier in declaration.registeredIdentifiers.sorted() where !alreadyRegistered.contains(identifier) {
            deliver(.registerTaskHandler(app, identifier: identifier))
        }
        for held in declaration.assertions.sorted(by: { $0.id < $1.id }) {
            deliver(
                .assertionBegun(
                    app,
                    held.id,
                    name: held.name,
                    origin: held.origin,
                    hasExpirationHandler: held.hasExpirationHandler
                )
            )
        }
        for mode in declaration.modes.sorted(by: { $0.rawValue < $1.rawValue }) {
            deliver(.beginModeActivity(app, mode))
        }
        if finishing { deliver(.finishLaunching(app)) }
    }

    /// Whether a declaration from `peer` (nil: an inherited connection, whose process this run
    /// started) is one to apply to the adopted process of `app`: `true` when it is that
    /// process, `false` when the app's process is not an adopted one (nothing to apply: this run
    /// saw it begin), nil when another process claims to be the adopted one. The peer's
    /// ``ProcessIdentity`` decides where both are known (no reused pid passes), else its pid.
    func adoptedDeclarant(_ app: AppID, peer: PeerIdentity?, in state: State) -> Bool? {
        guard let adopted = state.adopted[app], adopted.incarnation == state.core.incarnation(of: app) else {
            return false
        }
        guard let peer else { return true }
        if peer.pid != adopted.pid { return nil }
        if let have = peer.processIdentity, let want = adopted.processIdentity, have != want { return nil }
        return true
    }

    private func summary(of declaration: AppDeclaration) -> String {
        let modes =
            declaration.modes.isEmpty ? "" : ", modes " + declaration.modes.map(\.rawValue).joined(separator: ", ")
        return "\(declaration.lifecycleState), \(declaration.assertions.count) assertion(s), "
            + "\(declaration.registeredIdentifiers.count) launch handler(s)\(modes)"
    }

    /// The answer to an app's question about its own requests.
    func answer(_ query: AppQuery, for app: AppID) -> AppQueryAnswer {
        let now = clock()
        return state.withLock { $0.core.answer(query, of: app, at: now) }
    }
}

extension Effect {
    /// Whether the effect describes the start of a process that is already running when the
    /// daemon takes it over (its launch, its state change, its launch callbacks): the welcome
    /// says all of it.
    var describesTheLaunch: Bool {
        switch self {
        case .launch, .stateChanged, .deliverBackgroundWake, .resume: return true
        default: return false
        }
    }
}
