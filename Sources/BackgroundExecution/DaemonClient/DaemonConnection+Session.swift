import BackgroundCore
import BackgroundProtocol
import Foundation

extension DaemonConnection {
    /// Says hello on `socket` and waits for the welcome (at most `wait`, by default the
    /// connect timeout); on success the socket is the connection in use and what waited for a
    /// connection is sent.
    ///
    /// - Throws: ``DaemonSocketError``, or ``DaemonConnectionRefusal`` when the daemon refused.
    func greet(_ socket: DaemonSocket, declaring declaration: AppDeclaration?, within wait: Duration? = nil) throws {
        socket.setReadTimeout(wait ?? configuration.connectTimeout)
        socket.setWriteTimeout(configuration.connectTimeout)
        var decoder = FrameDecoder()
        let welcome: DaemonWelcome
        do {
            try socket.send(.hello(ClientHello(role: .app(app), declaration: declaration)))
            switch try socket.receive(into: &decoder) {
            case .welcome(let received)?:
                welcome = received
            case .refused(let refusal)?:
                throw DaemonConnectionRefusal(refusal: refusal)
            case let other:
                throw DaemonSocketError.malformed("expected a welcome, got \(String(describing: other))")
            }
        } catch {
            socket.close()
            throw error
        }
        socket.setReadTimeout(nil)
        state.withLock { state in
            if let grant = welcome.grant { state.view.grant.update(grant) }
            state.view.refreshStatus = welcome.refreshStatus ?? state.view.refreshStatus
            state.view.lowPowerMode = welcome.lowPowerMode ?? state.view.lowPowerMode
            state.view.supportsBackgroundGPU = welcome.supportsBackgroundGPU ?? false
            state.socket = socket
            state.pendingDecoder = decoder  // frames that came with the welcome
            let parked = state.parked
            state.parked.removeAll()
            for event in parked { send(.app(.oneWay(event)), in: &state) }
            state.wakeCallsAwaitingConnection()
        }
        transfersReconnected()
        logger.info(
            "\(app): connected to backgroundd (\(welcome.incarnation?.description ?? "?"), \(welcome.state?.description ?? "?"))"
        )
    }

    /// Starts the reader thread once (when the application is attached: pushed lifecycle
    /// callbacks need it, or at the first round trip).
    func startReading() {
        let start = state.withLock { state -> Bool in
            defer { state.readerStarted = true }
            return !state.readerStarted
        }
        guard start else { return }
        // The thread holds the connection only for one turn at a time: a connection nobody uses
        // any more (a test's, a replaced system's) stops trying once it is gone.
        let thread = Thread { [weak self] in
            var delay = self?.configuration.firstReconnectDelay ?? .zero
            while let connection = self, connection.readAndReconnect(&delay) {}
        }
        thread.name = "backgroundd connection"
        thread.start()
    }

    /// One turn of the reader thread: messages in, carried out in order, until the connection
    /// ends; then a wait (`delay`, doubled up to the maximum) and one attempt to connect again,
    /// declaring what the process holds.
    ///
    /// - Returns: Whether to go on (false: the connection cannot be made again).
    private func readAndReconnect(_ delay: inout Duration) -> Bool {
        if let (socket, decoder) = state.withLock({ state in
            state.socket.map { ($0, state.takePendingDecoder()) }
        }) {
            read(socket, decoder)
            delay = configuration.firstReconnectDelay
        }
        let (ended, path) = state.withLock { ($0.ended, configuration.reconnectPath) }
        guard !ended, let path else {
            logger.error("\(app): the connection to backgroundd ended and cannot be made again")
            state.withLock { $0.wakeCallsAwaitingConnection() }  // they give up at once
            return false
        }
        Thread.sleep(
            forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        )
        delay = min(delay * 2, configuration.maximumReconnectDelay)
        do {
            let socket = try DaemonSocket.connect(to: path)
            try greet(socket, declaring: declaration())
            logger.notice("\(app): connected to backgroundd again and declared what it holds")
        } catch let refused as DaemonConnectionRefusal where refused.refusal.code == .unsupportedVersion {
            // Another release of the daemon (an upgrade): said where the app's log shows it; the
            // attempts go on, with the backoff, in case the matching daemon comes back.
            logger.error("\(app): backgroundd at \(path) \(refused.refusal.message)")
        } catch {
            logger.debug("\(app): backgroundd not reachable yet at \(path): \(error)")
        }
        return true
    }

    /// Reads and carries out messages until the connection ends.
    private func read(_ socket: DaemonSocket, _ start: FrameDecoder) {
        var decoder = start
        while true {
            let response: DaemonResponse?
            do {
                response = try socket.receive(into: &decoder)
            } catch {
                logger.error("\(app): backgroundd: \(error)")
                response = nil
            }
            guard let response else { break }
            guard case .system(let message) = response else {
                logger.debug("\(app): ignored a message meant for another kind of client")
                continue
            }
            receive(message)
        }
        state.withLock { state in
            if state.socket === socket { disconnect(&state) }
        }
        socket.close()
        logger.notice("\(app): the connection to backgroundd ended")
    }

    /// One message from the daemon.
    private func receive(_ message: SystemMessage) {
        switch message {
        case .state(let grant):
            state.withLock { state in
                // Pushes are made in the daemon's order; one read earlier never replaces a later one.
                if let current = state.view.grant.pushed, current.incarnation == grant.incarnation,
                    current.measuredAt > grant.measuredAt
                {
                    return
                }
                state.view.grant.update(grant)
            }
        case .pushed(let effects):
            perform(effects)
        case .answer(_, let effects):
            let waiter = state.withLock { $0.waiters.isEmpty ? nil : $0.waiters.removeFirst() }
            waiter?.onAnswer?(message)
            perform(effects)
            waiter?.resolve(message)
        case .queryAnswer:
            let waiter = state.withLock { $0.waiters.isEmpty ? nil : $0.waiters.removeFirst() }
            waiter?.resolve(message)
        case .transfer(let notice):
            receiveTransfer(notice, message)
        }
    }

    /// What this process holds, for a daemon that did not see it begin.
    func declaration() -> AppDeclaration {
        state.withLock { state in
            var lifecycle = state.view.grant.pushed?.lifecycleState ?? .active
            if !lifecycle.isRunning { lifecycle = .background }  // it runs: it is at least in the background
            return AppDeclaration(
                lifecycleState: lifecycle,
                launchFinished: state.launchFinished,
                registeredIdentifiers: state.tables.taskHandlers.keys.sorted(),
                assertions: state.held.all,
                modes: state.tables.heldModes.sorted { $0.rawValue < $1.rawValue }
            )
        }
    }

    /// Sends a request and waits for its answer (register, submit, the questions, a mode's begin).
    ///
    /// Without a connection, or when it breaks before the answer, the request waits for the
    /// reader thread to connect again and is sent again then (a submit replaces its
    /// identifier's request, a question and a mode held once mean the same the second time),
    /// for at most ``Configuration/reconnectionWait`` in all. A request that must not reach the
    /// same daemon twice (a registration: a second one is the fault Apple crashes on) passes
    /// `sentOnce`: when the connection breaks after it was sent, it is ``RoundTripResult/lost``
    /// and is not sent again.
    ///
    /// - Parameter onAnswer: Sees the answer on the reader thread, before its effects are
    ///   carried out.
    func roundTrip(
        _ request: AppMessage,
        sentOnce: Bool = false,
        onAnswer: (@Sendable (SystemMessage) -> Void)? = nil
    ) -> RoundTripResult {
        startReading()
        let deadline = DispatchTime.now() + configuration.reconnectionWait.dispatchInterval
        while true {
            let waiter = RoundTrip(onAnswer: onAnswer)
            let attempt = state.withLock { state -> RoundTripAttempt in
                guard state.socket != nil else {
                    guard !state.ended, configuration.reconnectPath != nil else { return .cannotConnect }
                    let connected = DispatchSemaphore(value: 0)
                    state.awaitingConnection.append(connected)
                    return .awaitConnection(connected)
                }
                state.waiters.append(waiter)
                return send(.app(request), in: &state) ? .sent : .broken  // a failed send resolves the waiter
            }
            switch attempt {
            case .cannotConnect:
                return .noConnection
            case .sent:
                if let answer = waiter.wait() { return .answered(answer) }
                if sentOnce { return .lost }
            case .broken:
                break
            case .awaitConnection(let connected):
                if connected.wait(timeout: deadline) == .timedOut {
                    state.withLock { state in state.awaitingConnection.removeAll { $0 === connected } }
                    return .noConnection
                }
            }
            if DispatchTime.now() >= deadline { return .noConnection }
        }
    }
}

/// What became of a round trip to the daemon.
enum RoundTripResult {
    /// The daemon's answer.
    case answered(SystemMessage)
    /// Sent once, and the connection broke before the answer (``DaemonConnection/roundTrip(_:sentOnce:onAnswer:)``).
    case lost
    /// No connection came in time, or none can (it cannot be made again, or the daemon ended
    /// this process).
    case noConnection
}

/// What became of one attempt to send a round trip.
private enum RoundTripAttempt {
    /// There is no connection and none will be made.
    case cannotConnect
    /// Sent: wait for the answer.
    case sent
    /// The send broke the connection: wait for the next one.
    case broken
    /// There is no connection yet: signalled when the reader thread made one.
    case awaitConnection(DispatchSemaphore)
}

extension Duration {
    /// The duration as a dispatch interval, to the nanosecond.
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return .nanoseconds(Int(max(0, min(nanoseconds, 1e17))))
    }
}

/// The daemon refused this app's hello (not installed, not the process it claims to be,
/// another protocol version).
struct DaemonConnectionRefusal: Error, CustomStringConvertible {
    let refusal: DaemonRefusal
    var description: String { "refused: \(refusal)" }
}

extension DaemonConnection.State {
    /// Lets the round trips that wait for a connection go on (it was made, or never will be).
    mutating func wakeCallsAwaitingConnection() {
        for connected in awaitingConnection { connected.signal() }
        awaitingConnection.removeAll()
    }

    /// The decoder holding frames that arrived with the welcome, for the reader to go on from.
    mutating func takePendingDecoder() -> FrameDecoder {
        defer { pendingDecoder = FrameDecoder() }
        return pendingDecoder
    }
}
