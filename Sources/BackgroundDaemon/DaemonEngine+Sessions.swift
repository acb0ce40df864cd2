public import BackgroundCore
import BackgroundExecution
import BackgroundPosix
public import BackgroundProtocol

extension DaemonEngine {
    /// A new connection: it must say hello before anything else.
    public func connected(_ link: any ClientLink) {
        state.withLock { $0.sessions[link.linkID] = Session(link: link, role: .awaitingHello) }
    }

    /// A connection the daemon made for an app it started: the app's identity holds by
    /// construction (the process inherited the other end), so its hello is not checked against
    /// peer credentials, only against this app.
    public func attachInherited(_ link: any ClientLink, app: AppID, incarnation: Incarnation) {
        var outbox = Outbox()
        state.withLock { state in
            if let old = state.appLinks[app], let session = state.sessions.removeValue(forKey: old) {
                outbox.close(session.link, reason: "replaced by \(incarnation)")
            }
            // The app's effects wait (awaitingConnection) until its hello, so the welcome comes first.
            state.sessions[link.linkID] = Session(link: link, role: .inherited(app))
        }
        outbox.flush()
    }

    /// A frame from a connection, decoded. `peer` is the connection's credentials (nil for an
    /// inherited connection).
    public func received(_ request: DaemonRequest, from link: any ClientLink, peer: PeerIdentity?) {
        let role = state.withLock { $0.sessions[link.linkID]?.role }
        switch (role, request) {
        case (nil, _):
            return  // already closed
        case (.awaitingHello?, .hello(let hello)):
            acceptHello(hello, from: link, peer: peer)
        case (.inherited(let app)?, .hello(let hello)):
            // An inherited connection says hello too; it must name its own app.
            guard case .app(let claimed) = hello.role, claimed == app,
                hello.protocolVersion == Int(ProtocolCodec.version)
            else {
                return refuse(link, DaemonRefusal(.notTheApp, "this connection belongs to \(app)"))
            }
            // Welcome, then what waited for it, under the lock: no push can come between (sends
            // only queue on the channel, they never call back).
            state.withLock { state in
                state.sessions[link.linkID]?.role = .app(app)
                state.appLinks[app] = link.linkID
                link.send(.welcome(welcomeLocked(for: app, in: &state)))
                let waiting = state.awaitingConnection.removeValue(forKey: app) ?? []
                if !waiting.isEmpty { link.send(.system(.pushed(waiting))) }
            }
        case (.app(let app)?, .app(.event(let event))):
            appEvent(event, from: app, link: link, oneWay: false)
        case (.app(let app)?, .app(.oneWay(let event))):
            appEvent(event, from: app, link: link, oneWay: true)
        case (.app(let app)?, .app(.query(let query))):
            link.send(.system(.queryAnswer(answer(query, for: app))))
        case (.app(let app)?, .app(.transfer(let call))):
            transferCall(call, from: app, link: link)
        case (.control?, .control(let request)):
            control(request, from: link)
        case (.awaitingHello?, _), (.inherited?, _):
            refuse(link, DaemonRefusal(.protocolViolation, "the first message must be a hello"))
        case (.app?, .hello):
            refuse(link, DaemonRefusal(.protocolViolation, "a connection says hello once"))
        case (.control?, .hello), (.control?, .app):
            refuse(link, DaemonRefusal(.notPermitted, "a control client sends control requests only"))
        case (.app?, .control):
            refuse(link, DaemonRefusal(.notPermitted, "an app cannot send control requests"))
        }
    }

    private func acceptHello(_ hello: ClientHello, from link: any ClientLink, peer: PeerIdentity?) {
        guard hello.protocolVersion == Int(ProtocolCodec.version) else {
            return refuse(
                link,
                DaemonRefusal(
                    .unsupportedVersion,
                    "protocol version \(hello.protocolVersion) is not supported (this daemon speaks \(ProtocolCodec.version))"
                )
            )
        }
        let daemonUID = SystemCall.effectiveUserID
        switch hello.role {
        case .control:
            let apps = state.withLock { Array($0.installed.values) }
            if let peer, let why = IdentityCheck.controlRefusal(of: peer, apps: apps, daemonUID: daemonUID) {
                return refuse(link, DaemonRefusal(.notPermitted, why))
            }
            state.withLock { $0.sessions[link.linkID]?.role = .control(followsLog: false) }
            link.send(.welcome(DaemonWelcome()))
        case .app(let app):
            let installed = state.withLock { $0.installed[app] }
            // A peer that may not speak as any app of this name learns nothing from the refusal:
            // the same code and words whether the app is installed or not, and no uid of it.
            if let peer, !IdentityCheck.mayClaim(app: installed, peer: peer, daemonUID: daemonUID) {
                logger.warning("refused a connection claiming to be \(app): uid \(peer.uid) may not")
                return refuse(link, DaemonRefusal(.notTheApp, "uid \(peer.uid) may not connect as \(app)"))
            }
            guard let installed else {
                return refuse(link, DaemonRefusal(.notInstalled, "\(app) is not installed (no manifest names it)"))
            }
            if let peer, let why = IdentityCheck.refusal(of: peer, as: installed, daemonUID: daemonUID) {
                logger.warning("refused a connection claiming to be \(app): \(why)")
                return refuse(link, DaemonRefusal(.notTheApp, why))
            }
            appConnected(app, link: link, declaration: hello.declaration, peer: peer)
        }
    }

    /// An app's process connected on the socket: it is that app's process now. If the app was
    /// not running, it launched in the foreground (the user started it), or, when its hello
    /// declares what it holds (the daemon restarted under it), it is taken over in the state it
    /// declares. A process the previous run started, adopted at this run's start, declares the
    /// same way, and its declaration is applied once checked to come from it (`peer`, nil for a
    /// connection whose identity holds by construction).
    private func appConnected(_ app: AppID, link: any ClientLink, declaration: AppDeclaration?, peer: PeerIdentity?) {
        var outbox = Outbox()
        enum Start {
            case launch, declaredByAdopted, running
            case refused(DaemonRefusal)
        }
        let start = state.withLock { state -> Start in
            let running = state.core.state(of: app).isRunningProcess
            if let refusal = declarationRefusal(app, declaration, peer: peer, running: running, in: state) {
                return .refused(refusal)
            }
            if let old = state.appLinks.removeValue(forKey: app), old != link.linkID,
                let session = state.sessions.removeValue(forKey: old)
            {
                outbox.close(session.link, reason: "\(app) connected again from another process")
            }
            state.sessions[link.linkID]?.role = .app(app)
            guard running else {
                state.connecting.insert(app)
                // What the launch decides for the app waits for the welcome (see `takeOver`).
                state.awaitingConnection[app] = []
                return .launch
            }
            guard declaration != nil, adoptedDeclarant(app, peer: peer, in: state) == true else { return .running }
            // What fell due for it before (a task it was thawed for) stays first; what applying
            // the declaration decides follows it.
            if state.awaitingConnection[app] == nil { state.awaitingConnection[app] = [] }
            return .declaredByAdopted
        }
        outbox.flush()
        if case .refused(let refusal) = start {
            logger.warning("refused a declaration for \(app) from pid \(peer?.pid ?? -1): \(refusal.message)")
            return refuse(link, refusal)
        }
        let before = state.withLock { state -> Int in state.awaitingConnection[app]?.count ?? 0 }
        switch (start, declaration) {
        case (.launch, let declaration?):
            admitUserStarted(app, peer: peer)
            takeOver(app, declaring: declaration)
        case (.launch, nil):
            // This process is the launch, which the user started; the welcome carries the state
            // it leads to. The app in the foreground, if another, resigns first.
            admitUserStarted(app, peer: peer)
            bringToForeground(app)
        case (.declaredByAdopted, let declaration?): applyAdopted(app, declaring: declaration)
        default: break
        }
        state.withLock { state in
            state.connecting.remove(app)
            let waiting = state.awaitingConnection.removeValue(forKey: app) ?? []
            guard state.sessions[link.linkID] != nil else { return }
            state.appLinks[app] = link.linkID
            link.send(.welcome(welcomeLocked(for: app, in: &state)))  // before any push: under the lock
            // This process's own launch (started by the user, or taken over) is what the welcome
            // describes; what else it decided (tasks that fell due, a revoked assertion) follows,
            // in order. A process the previous run of the daemon started, connecting again, gets
            // what fell due for it meanwhile (DaemonEngine+Restart.swift), then what its
            // declaration led to, but for the state, which the welcome describes.
            let following: [Effect]
            switch start {
            case .launch: following = waiting.filter { !$0.describesTheLaunch }
            case .declaredByAdopted:
                let applied = waiting.count > before ? waiting[before...] : []
                following = waiting.prefix(before) + applied.filter { !$0.describesTheLaunch }
            case .running, .refused: following = waiting
            }
            if !following.isEmpty { link.send(.system(.pushed(following))) }
        }
    }

    /// Takes the process of an app the user started under the process control, so that its
    /// `.suspend` freezes it like a process the daemon started; where it cannot be, the reason
    /// is kept and reported instead of `suspended`.
    private func admitUserStarted(_ app: AppID, peer: PeerIdentity?) {
        guard let installed = state.withLock({ $0.installed[app] }) else { return }
        let refusal = processes.admit(installed, peer: peer)
        state.withLock { state in
            state.notFrozen[app] = refusal
            if refusal == nil { state.admitted.insert(app) } else { state.admitted.remove(app) }
        }
    }

    func welcome(for app: AppID) -> DaemonWelcome {
        state.withLock { welcomeLocked(for: app, in: &$0) }
    }

    /// The welcome to an app's process: its incarnation and the state its runtime decides begins
    /// from, which is recorded as pushed (later pushes are sent when it changes).
    func welcomeLocked(for app: AppID, in state: inout State) -> DaemonWelcome {
        let grant = state.core.grantState(of: app, at: clock())
        state.pushedGrants[app] = grant
        return DaemonWelcome(
            incarnation: state.core.incarnation(of: app),
            nextAssertionID: state.core.nextAssertionID(of: app),
            state: state.core.state(of: app),
            grant: grant,
            refreshStatus: state.core.backgroundRefreshStatus(of: app),
            supportsBackgroundGPU: configuration.policy.scheduling.supportsBackgroundGPU,
            lowPowerMode: state.core.isLowPowerModeEnabled
        )
    }

    /// An app's event: only about itself, and only the calls an app makes. A request is
    /// answered (its reply and the effects for the app); a one-way event is not, and the effects
    /// it causes for the app are pushed.
    private func appEvent(_ event: Event, from app: AppID, link: any ClientLink, oneWay: Bool) {
        guard let subject = event.appCallSubject else {
            logger.warning("\(app) sent an event only the system may send; connection closed")
            return refuse(link, DaemonRefusal(.notPermitted, "an app cannot report this event"))
        }
        guard subject == app else {
            logger.warning("\(app) tried to act on \(subject); connection closed")
            return refuse(link, DaemonRefusal(.notPermitted, "a connection of \(app) cannot act on another app"))
        }
        if transfersHoldWake(event, from: app, link: link) { return }  // until the transfer events are handled
        if let reply = redeclared(event, by: app) {
            if !oneWay { link.send(.system(.answer(reply, []))) }  // made for it at the daemon's restart
            return
        }
        let (reply, effects) = handle(event, answering: app)
        if !oneWay {
            link.send(.system(.answer(reply, effects)))
        } else if !effects.isEmpty {
            link.send(.system(.pushed(effects)))
        }
    }

    /// Sends the refusal and closes the connection.
    func refuse(_ link: any ClientLink, _ refusal: DaemonRefusal) {
        state.withLock { $0.sessions[link.linkID] = nil }
        link.send(.refused(refusal))
        link.close(reason: refusal.description)
    }

    /// A connection ended (the peer closed it, or the daemon did). If it was an app's current
    /// process, the process is gone: the core is told it exited, which releases what it held.
    public func disconnected(_ link: any ClientLink) {
        let app = state.withLock { state -> AppID? in
            guard let session = state.sessions.removeValue(forKey: link.linkID) else { return nil }
            guard case .app(let app) = session.role, state.appLinks[app] == link.linkID else { return nil }
            state.appLinks[app] = nil
            state.pushedGrants[app] = nil
            // A process the daemon started is watched: its exit (with its real status) ends it.
            guard !state.started.contains(app) else { return nil }
            // One the user started is let go, thawed: it has exited, to the system.
            if state.admitted.remove(app) != nil { processes.release(app) }
            state.notFrozen[app] = nil
            return state.core.state(of: app).isRunningProcess ? app : nil
        }
        if let app {
            logger.info("\(app): its connection closed; the process is treated as exited")
            deliver(.terminate(app, .exited(status: 0)))
        }
    }
}

extension DaemonEngine {
    /// A process the daemon started ended on its own (or was killed): the core is told, which
    /// releases what it held and records its running tasks as failed.
    public func processExited(_ app: AppID, status: Int32) {
        let running = state.withLock { state -> Bool in
            state.started.remove(app)
            return state.core.state(of: app).isRunningProcess
        }
        if running { deliver(.terminate(app, .exited(status: status))) }
    }
}

extension AppLifecycleState {
    /// Whether a process exists (running or frozen).
    var isRunningProcess: Bool {
        switch self {
        case .active, .inactive, .background, .suspended: return true
        case .notRunning, .terminated: return false
        }
    }
}
