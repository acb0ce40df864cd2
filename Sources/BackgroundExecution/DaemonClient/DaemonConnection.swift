public import BackgroundCore
import BackgroundProtocol
import Foundation
public import Logging
import Synchronization

/// The app's connection to `backgroundd`: Apple's API in this process, the system in the daemon.
///
/// `UIApplication.shared` uses it when the environment says so (`BACKGROUND_SYSTEM=daemon`, or
/// an app the daemon started, which inherits a connected socket as `BACKGROUND_CONNECTION_FD`);
/// ``EmbeddedSystem`` stays the default. App code does not change:
///
/// ```swift
/// // BACKGROUND_SYSTEM=daemon BACKGROUND_APP=com.example.indexer ./indexer
/// let app = UIApplication.shared                       // connected to backgroundd
/// var task = UIBackgroundTaskIdentifier.invalid
/// task = app.beginBackgroundTask(withName: "Index") { app.endBackgroundTask(task) }
/// ```
///
/// The common case takes no round trip (docs/core-contract.md): the daemon pushes the app's
/// ``GrantState`` (in the welcome, and again whenever it changes), and `beginBackgroundTask` is
/// decided here by the shared ``GrantRule`` with an identifier allocated here, then sent one way;
/// ends, handler returns, cancels and completions are one way too. What the daemon decides on
/// its own (an expiration, a task launch, a state change, a termination) is pushed and reaches
/// the app's handlers on the main actor, as in the embedded system. `register`, `submit` and the
/// questions about pending requests are round trips, as Apple's own are.
///
/// When the connection breaks (the daemon restarted), the connection reconnects with a bounded
/// backoff and declares what the process holds (``AppDeclaration``): its assertions under the
/// identifiers the app's code holds, its background modes, its launch handlers, its state. A
/// call that needs the daemon's answer meanwhile (`submit`, `register`, the questions, a mode's
/// begin) waits for the connection to be made again, at most
/// ``Configuration/reconnectionWait``.
public final class DaemonConnection: SystemConnection, RuntimeHost {
    /// How a connection is set up.
    public struct Configuration: Sendable {
        /// Where the daemon is.
        public enum Endpoint: Sendable, Hashable {
            /// A connected socket the daemon passed when it started this process.
            case inherited(descriptor: Int32)
            /// The daemon's socket.
            case socket(path: String)
        }

        /// The app's bundle identifier, as its manifest names it.
        public var app: AppID
        /// Where the daemon is.
        public var endpoint: Endpoint
        /// Where to connect again when the connection breaks (for an inherited connection, the
        /// daemon's socket: a restarted daemon cannot hand over a new one); nil never reconnects.
        public var reconnectPath: String?
        /// How long the first connection may take to be welcomed.
        public var connectTimeout: Duration
        /// The first wait before connecting again, doubled after every failure up to
        /// ``maximumReconnectDelay``.
        public var firstReconnectDelay: Duration
        /// The longest wait between two attempts to connect again.
        public var maximumReconnectDelay: Duration
        /// How long a call that needs the daemon's answer (`register`, `submit`, the questions
        /// about pending requests, a background mode's begin) waits for a connection when there
        /// is none, or when it broke before the answer came; after it the call fails as without
        /// a daemon (`submit` throws `unavailable`).
        public var reconnectionWait: Duration
        /// When the app's launch is over (launch handlers must be registered before then).
        public var launchCompletion: EmbeddedSystem.LaunchCompletion
        /// What a termination the daemon decides does to this process: by default it ends.
        public var terminationBehavior: EmbeddedSystem.TerminationBehavior
        /// The logger.
        public var logger: Logger
        /// Sees every effect this process carries out (pushed by the daemon, answering a call,
        /// or a begin denied here from the pushed state), in order, just before it is carried
        /// out, with the boot-clock instant: as ``EmbeddedSystem/Configuration/effectObserver``.
        public var effectObserver: (@Sendable (Instant, Effect) -> Void)?
        /// The app's `UIApplicationSceneManifest` (``AppManifest/sceneManifest``): present, the app
        /// is scene-based. The daemon does not send it: an app started from the environment
        /// (`UIApplication.shared`'s default) has none, so it runs without scenes.
        public var sceneManifest: SceneManifest?
        /// What opens URLs for `UIApplication.open(_:options:completionHandler:)`; `nil` (the
        /// default): the daemon opens none, and `open` completes with `false`.
        public var urlOpener: URLOpener?

        /// Creates a configuration.
        public init(
            app: AppID,
            endpoint: Endpoint,
            reconnectPath: String? = nil,
            connectTimeout: Duration = .seconds(5),
            firstReconnectDelay: Duration = .milliseconds(20),
            maximumReconnectDelay: Duration = .seconds(2),
            reconnectionWait: Duration = .seconds(10),
            launchCompletion: EmbeddedSystem.LaunchCompletion = .firstMainActorTurn,
            terminationBehavior: EmbeddedSystem.TerminationBehavior = .exitProcess,
            logger: Logger = Logger(label: "background-execution.daemon"),
            effectObserver: (@Sendable (Instant, Effect) -> Void)? = nil,
            sceneManifest: SceneManifest? = nil
        ) {
            self.app = app
            self.endpoint = endpoint
            if case .socket(let path) = endpoint, reconnectPath == nil {
                self.reconnectPath = path
            } else {
                self.reconnectPath = reconnectPath
            }
            self.connectTimeout = connectTimeout
            self.firstReconnectDelay = firstReconnectDelay
            self.maximumReconnectDelay = maximumReconnectDelay
            self.reconnectionWait = reconnectionWait
            self.launchCompletion = launchCompletion
            self.terminationBehavior = terminationBehavior
            self.logger = logger
            self.effectObserver = effectObserver
            self.sceneManifest = sceneManifest
        }
    }

    struct State {
        var tables = RuntimeTables()
        /// What the daemon pushed: the grant state, the refresh status, Low Power Mode.
        var view = PushedView(refreshStatus: .available)
        /// The assertions this process holds, by identifier: declared again on reconnection.
        var held = HeldAssertions()
        var launchFinished = false
        /// The connection in use; nil while there is none.
        var socket: DaemonSocket?
        /// Bytes read with the welcome beyond it (pushes that followed at once).
        var pendingDecoder = FrameDecoder()
        /// Round trips sent and not answered yet, oldest first (answers come in order).
        var waiters: [RoundTrip] = []
        /// Round trips waiting for a connection to be made (signalled at each welcome).
        var awaitingConnection: [DispatchSemaphore] = []
        /// One-way events that must not be lost while there is no connection (cancels, the
        /// fetch interval), sent after the next welcome.
        var parked: [Event] = []
        var readerStarted = false
        /// The daemon ended this process (``EmbeddedSystem/TerminationBehavior/record``).
        var ended = false
        var reports: [TerminationReport] = []
    }

    /// The configuration.
    public let configuration: Configuration

    /// The configuration's `UIApplicationSceneManifest`: present, the app is scene-based.
    public var sceneManifest: SceneManifest? { configuration.sceneManifest }

    /// The configuration's URL opener.
    public var urlOpener: URLOpener? { configuration.urlOpener }
    /// The app this connection speaks for.
    public let app: AppID
    let state = Mutex(State())
    /// Background sessions' transfers through the daemon (`DaemonConnection+Transfers.swift`).
    let transferClientSlot = Mutex<DaemonTransferClient?>(nil)
    var logger: Logger { configuration.logger }

    /// Connects and waits (at most ``Configuration/connectTimeout``) for the daemon's welcome.
    ///
    /// A daemon that cannot be reached or refuses the app is logged as an error; the connection
    /// then keeps trying (when it has a ``Configuration/reconnectPath``), and until a daemon
    /// welcomes it every `beginBackgroundTask` is denied, and a call that needs an answer waits
    /// for it (at most ``Configuration/reconnectionWait``; then `submit` throws `unavailable`).
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.app = configuration.app
        do {
            let socket: DaemonSocket
            switch configuration.endpoint {
            case .inherited(let descriptor): socket = DaemonSocket(descriptor: descriptor)
            case .socket(let path):
                do { socket = try DaemonSocket.connect(to: path) } catch { throw DaemonSocketError.system(error) }
            }
            try greet(socket, declaring: nil, within: configuration.welcomeWait)
        } catch {
            logger.error("\(app): backgroundd: \(error)")
        }
        if configuration.launchCompletion == .firstMainActorTurn {
            DispatchQueue.main.async { [weak self] in self?.finishLaunching() }
        }
    }

    /// How long the first welcome may take to come back to this process, at most.
    static let inheritedWelcomeWait = Duration.seconds(120)

    /// The time now on the machine's boot clock, which the daemon reads too.
    public var now: Instant { SystemTime.bootClockNow }

    /// Ends the app's launch: registration of launch handlers closes and due tasks can be
    /// handed over. Calling it again does nothing.
    public func finishLaunching() {
        let first = state.withLock { state -> Bool in
            defer { state.launchFinished = true }
            return !state.launchFinished
        }
        if first { sendOneWay(.finishLaunching(app)) }
    }

    /// The termination reports the daemon sent (``EmbeddedSystem/TerminationBehavior/record``).
    public var terminationReports: [TerminationReport] {
        state.withLock { $0.reports }
    }

    /// Whether a daemon welcomed this process and the connection is up.
    public var isConnected: Bool {
        state.withLock { $0.socket != nil }
    }

    // MARK: Assertions, without a round trip

    public func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        let now = self.now
        let decision = state.withLock { state -> Result<AssertionID, GrantDenial> in
            let decision = state.view.grant.begin(at: now)
            guard case .success(let id) = decision else { return decision }
            _ = state.tables.recordBegin(id, handler: expirationHandler)
            let held = DeclaredAssertion(
                id: id,
                name: name,
                origin: site,
                hasExpirationHandler: expirationHandler != nil
            )
            state.held.insert(held)
            let event = Event.assertionBegun(
                app,
                id,
                name: name,
                origin: site,
                hasExpirationHandler: expirationHandler != nil
            )
            send(.app(.oneWay(event)), in: &state)  // without a connection: declared on reconnection
            return decision
        }
        switch decision {
        case .success(let id):
            return id
        case .failure(let denial):
            // What the core answers a denied begin with: the runtime's interpreter calls the
            // handler (S2), as in the embedded system and the simulator.
            perform(Effect.deniedBegin(app, name: name, reason: denial.reason), deniedHandler: expirationHandler)
            return nil
        }
    }

    public func endAssertion(_ id: AssertionID) {
        state.withLock { state in
            state.tables.recordEnd(id)
            let held = state.held.remove(id)
            // Without a connection, an end needs no message: the declaration leaves it out.
            if state.socket != nil || held { send(.app(.oneWay(.endAssertion(app, id))), in: &state) }
        }
    }

    /// The app's status, from what the daemon pushed.
    package var status: AppStatus {
        let now = self.now
        return state.withLock { $0.view.status(at: now) }
    }

    /// Records the application object (as every transport does) and starts reading the
    /// daemon's pushes, which its lifecycle callbacks need.
    public func attach(_ application: UIApplication) {
        withTables { $0.application = application }
        startReading()
    }

    public func log(_ level: LogRecord.Level, _ message: String) {
        logger.log(level: level.swiftLogLevel, "\(app): \(message)")
    }

    // MARK: Sending

    /// Sends an app event that nothing waits for. Cancels and the fetch interval wait for the
    /// next connection when there is none; the rest concerns what the daemon that is gone knew.
    package func sendOneWay(_ event: Event) {
        state.withLock { state in
            if state.socket == nil {
                if event.survivesReconnection, state.parked.count < Self.maximumParkedEvents {
                    state.parked.append(event)
                }
                return
            }
            send(.app(.oneWay(event)), in: &state)
        }
    }

    /// The most one-way events kept while there is no connection.
    static let maximumParkedEvents = 1024

    /// Writes a message on the connection, under the lock (frames in the order of the calls);
    /// a failed write breaks the connection, and the reader thread reconnects.
    @discardableResult
    func send(_ request: DaemonRequest, in state: inout State) -> Bool {
        guard let socket = state.socket else { return false }
        do {
            try socket.send(request)
            return true
        } catch {
            logger.error("\(app): backgroundd: \(error); connecting again")
            disconnect(&state)
            return false
        }
    }

    /// Drops the connection: round trips waiting for it fail, the reader thread sees the end of
    /// the stream and reconnects.
    func disconnect(_ state: inout State) {
        guard let socket = state.socket else { return }
        state.socket = nil
        socket.shutDown()
        let waiters = state.waiters
        state.waiters.removeAll()
        for waiter in waiters { waiter.resolve(nil) }
    }
}

extension DaemonConnection.Configuration {
    /// How long the first hello waits for the welcome: ``connectTimeout``, but for a connection
    /// the daemon passed (it started this process and is there: a daemon that dies closes the
    /// socket, which ends the wait at once), at least two minutes. On a loaded machine a welcome
    /// later than the timeout closed the inherited connection before its first pushes arrived
    /// (the launch's wake among them), and the app's handler registration, made meanwhile,
    /// failed; see `DaemonConnectionTests.launchedForTask`.
    var welcomeWait: Duration {
        guard case .inherited = endpoint else { return connectTimeout }
        return max(connectTimeout, DaemonConnection.inheritedWelcomeWait)
    }
}

extension Event {
    /// Whether a one-way event still means something to a daemon that did not see this process
    /// before (it restarted): the app's wishes about its requests. Handler returns, completions
    /// and progress concern what the daemon that is gone handed out.
    var survivesReconnection: Bool {
        switch self {
        case .cancelTaskRequest, .cancelAllTaskRequests, .setMinimumBackgroundFetchInterval: return true
        default: return false
        }
    }
}
