public import BackgroundCore
import BackgroundPaths
public import Foundation
public import Logging
import Synchronization

/// The background execution system running inside the app's own process: the default connection.
///
/// It feeds the pure ``BackgroundSystem`` with events stamped by its clock and carries out the
/// effects: expiration handlers and delegate calls on the main actor, timers for budgets and
/// watchdogs, termination reports to stderr and a reports directory, and the process's exit.
///
/// For a Linux service this is graceful shutdown with Apple's model:
///
/// ```swift
/// let system = EmbeddedSystem(configuration: .init(app: "com.example.indexer",
///                                                  policy: .server(grace: .seconds(20))))
/// system.moveToBackground(onSignals: [SIGTERM, SIGINT])
/// let app = UIApplication.bootstrap(system)
/// // work under app.beginBackgroundTask(...) finishes within 20 s after SIGTERM; the process
/// // exits 0 when the last task ends, or prints a 0x8badf00d report naming what leaked.
/// ```
///
/// On a ``ManualClock`` the same system runs in virtual time for tests: nothing happens until
/// the clock is advanced, and main-actor work runs inside `advance`, in order.
///
/// Linux behaviour: a process cannot freeze itself, so under ``SystemPolicy/iOS`` "suspended"
/// is a state the system tracks, not a frozen process: assertions requested while suspended are
/// denied (`.invalid`, and the handler is called). Services use ``SystemPolicy/server(grace:)``,
/// which exits instead; really freezing apps is the daemon's job.
public final class EmbeddedSystem: SystemConnection, RuntimeHost {
    /// Where the system's time comes from.
    public enum Clock: Sendable {
        /// The real, monotonic clock: the boot clock, whose origin (the machine's boot) every
        /// process on the machine shares (``SystemTime``).
        case continuous
        /// Virtual time that moves only when advanced.
        case manual(ManualClock)
    }

    /// What happens to the process when the system ends the app.
    public enum TerminationBehavior: Sendable {
        /// Write the report (for watchdog terminations) and end the process: status 0 for a clean
        /// exit, ``EmbeddedSystem/watchdogExitStatus`` after a watchdog termination.
        case exitProcess
        /// Keep the report in ``EmbeddedSystem/terminationReports`` and let the process go on
        /// (tests, demos).
        case record
    }

    /// When the app's launch is over: launch handlers must be registered before then, and
    /// due tasks are handed over only after it.
    public enum LaunchCompletion: Sendable, Hashable {
        /// At the first turn of the main actor, as UIKit ends `didFinishLaunching`: right for
        /// apps whose start-up code runs synchronously on the main thread, and for tests on a
        /// ``ManualClock`` (the first `advance` or `runPending`).
        case firstMainActorTurn
        /// When the app calls ``EmbeddedSystem/finishLaunching()``: right for services whose
        /// start-up runs in an async `main`, off the main actor.
        case explicit
    }

    /// How an embedded system is set up.
    public struct Configuration: Sendable {
        /// The app's identity.
        public var app: AppID
        /// The numbers in force.
        public var policy: SystemPolicy
        /// The clock.
        public var clock: Clock
        /// What a termination does to the process.
        public var terminationBehavior: TerminationBehavior
        /// Where watchdog reports are written (`.txt` and `.json`); `nil` writes none.
        public var reportsDirectory: URL?
        /// Whether watchdog reports are also printed to standard error.
        public var printsReportsToStandardError: Bool
        /// The logger for the system's messages.
        public var logger: Logger
        /// Called with every effect the core returns, stamped with its instant, before it is
        /// carried out: for timelines, demos and tests. Called outside the system's lock.
        public var effectObserver: (@Sendable (Instant, Effect) -> Void)?
        /// The app's manifest (`Info.plist` keys); without one no task identifier is permitted.
        public var manifest: AppManifest?
        /// Where pending requests and usage persist; `nil` keeps them in memory only.
        public var store: (any PersistentStore)?
        /// The device's conditions: by default a server's (external power, network, no user).
        public var device: DeviceConditions
        /// When the app's launch is over.
        public var launchCompletion: LaunchCompletion
        /// Whether every event and every answer crosses an encoding boundary: encoded into the
        /// protocol's messages (``BackgroundProtocol``), as bytes, and decoded on the other side,
        /// as a transport to another process would; no foreground fast path. For tests of the
        /// seam; the default is `$BACKGROUND_ENCODE_MESSAGES == "1"`.
        public var encodesMessages: Bool = EncodingBoundary.requestedByEnvironment
        /// Where this system's faults (misuse iOS traps on) go; `nil` sends them to the
        /// process-wide ``BackgroundFault/hook``. Set it in tests that run in parallel, so each
        /// sees its own system's faults only.
        public var onFault: (@Sendable (BackgroundFault) -> Void)?
        /// Called once the app has ended and its report has been published (printed, and written
        /// to ``reportsDirectory``), before the process is ended under ``TerminationBehavior/exitProcess``:
        /// for the service bridge, which must not let its group return before the report is
        /// on disk (a top-level `main` that returns or throws ends the process mid-write).
        package var terminationObserver: (@Sendable (TerminationReport) -> Void)?
        /// What opens URLs for `UIApplication.open(_:options:completionHandler:)`; `nil` (the
        /// default): nothing does, and `open` completes with `false`.
        public var urlOpener: URLOpener?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - app: The app's identity; defaults to `local.<process name>`.
        ///   - policy: Defaults to ``SystemPolicy/server(grace:)`` with 30 s, iOS's budget.
        ///   - clock: Defaults to the real clock.
        ///   - terminationBehavior: Defaults to ending the process, as iOS does.
        ///   - reportsDirectory: Defaults to ``EmbeddedSystem/defaultReportsDirectory`` when the
        ///     system ends the process, and to none under ``TerminationBehavior/record``: tests
        ///     and demos write nothing outside what they are given. Pass a directory to have
        ///     `.record` write its reports there.
        public init(
            app: AppID = AppID("local." + ProcessInfo.processInfo.processName),
            policy: SystemPolicy = .server(grace: .seconds(30)),
            clock: Clock = .continuous,
            terminationBehavior: TerminationBehavior = .exitProcess,
            reportsDirectory: URL? = EmbeddedSystem.defaultReportsDirectory,
            printsReportsToStandardError: Bool = true,
            logger: Logger = Logger(label: "background-execution"),
            effectObserver: (@Sendable (Instant, Effect) -> Void)? = nil,
            manifest: AppManifest? = nil,
            store: (any PersistentStore)? = nil,
            device: DeviceConditions = EmbeddedSystem.serverDevice,
            launchCompletion: LaunchCompletion = .firstMainActorTurn
        ) {
            self.launchCompletion = launchCompletion
            self.effectObserver = effectObserver
            self.manifest = manifest
            self.store = store
            self.device = device
            self.app = app
            self.policy = policy
            self.clock = clock
            self.terminationBehavior = terminationBehavior
            // The default directory is for processes the system really ends; a recording
            // system (a test) writes reports only where it is told to.
            let defaulted = reportsDirectory == EmbeddedSystem.defaultReportsDirectory
            self.reportsDirectory = terminationBehavior == .record && defaulted ? nil : reportsDirectory
            self.printsReportsToStandardError = printsReportsToStandardError
            self.logger = logger
        }
    }

    /// A server's device: on external power, network up, nobody using it, unlocked. (Probing the
    /// real machine is the daemon's job; set ``Configuration/device`` to model another.)
    public static let serverDevice = DeviceConditions(
        powerSource: .externalPower,
        batteryLevel: 1,
        lowPowerMode: false,
        network: .wifi,
        isIdle: true,
        unlockedSinceBoot: true
    )

    /// The exit status after a watchdog termination: 70, `EX_SOFTWARE` in `sysexits.h`.
    public static let watchdogExitStatus: Int32 = 70

    /// `StateDirectories.reports` of `StateDirectories.current`: `$BACKGROUND_REPORTS_DIR`,
    /// else `$XDG_STATE_HOME/background-execution/reports`, else
    /// `$HOME/.local/state/background-execution/reports` (relative values are ignored); nil when
    /// no usable home directory is known.
    public static var defaultReportsDirectory: URL? {
        StateDirectories.current.reports.map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// The system `UIApplication.shared` uses unless bootstrapped elsewhere: this process,
    /// the real clock, and a 30 s graceful-shutdown budget.
    public static let `default` = EmbeddedSystem(configuration: Configuration())

    struct State {
        var core: BackgroundSystem
        /// The app runtime's tables, under the same lock as the core: the fast path records a
        /// handler without a second lock.
        var tables = RuntimeTables()
        var buffer: [Effect] = []
        var reports: [TerminationReport] = []
        var timerTask: Task<Void, Never>?
        var timerToken: ManualClock.Token?
        /// The deadline the timer is armed for.
        var timerDeadline: Instant?
        /// The transfer service `bgctl why` lists the transfers of (see `explainsTransfers(of:)`).
        var transfers: (any TransferService)?
        /// Background-session events held while the app is suspended (``TransferEventHold``).
        var transferHold = TransferEventHold()
        /// Changes the store could not take yet, written first with the next write.
        var unsavedChanges: [StoreChange] = []
        /// ``Configuration/encodesMessages``: the app this system serves, whose grant state is
        /// pushed across the encoding boundary after every answer; `nil` when not encoding.
        var encodingFor: AppID?
        /// With ``Configuration/encodesMessages``: the pushed grant state and the identifiers
        /// the app's side allocates from it (no round trip for a begin).
        var grant = AppSideGrant()
        var encodesMessages: Bool { encodingFor != nil }
    }

    /// The configuration the system was created with.
    public let configuration: Configuration

    /// The configuration manifest's `UIApplicationSceneManifest`: present, the app is scene-based.
    public var sceneManifest: SceneManifest? { configuration.manifest?.sceneManifest }

    /// The configuration's URL opener.
    public var urlOpener: URLOpener? { configuration.urlOpener }
    let state: Mutex<State>

    /// The app this system serves.
    public let app: AppID

    // Copies of configuration values read on every call, kept apart so the hot paths do not
    // touch the whole configuration.
    let manualClock: ManualClock?
    let effectObserver: (@Sendable (Instant, Effect) -> Void)?

    /// Creates a system, restores the app's saved state, and launches the app into the foreground.
    ///
    /// The app is active at once. Its launch finishes as ``Configuration/launchCompletion``
    /// says: by default at the first turn of the main actor (on a ``ManualClock``: the first
    /// `advance` or `runPending`); launch handlers must be registered before then, as in
    /// `application(_:didFinishLaunchingWithOptions:)`.
    ///
    /// A store that cannot be read is a fault (through ``Configuration/onFault``): the system
    /// never starts over a store it could not read.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.app = configuration.app
        if case .manual(let clock) = configuration.clock { self.manualClock = clock } else { self.manualClock = nil }
        self.effectObserver = configuration.effectObserver
        let core = BackgroundSystem(policy: configuration.policy, device: configuration.device)
        var initial = State(core: core)
        if configuration.encodesMessages { initial.encodingFor = configuration.app }
        self.state = Mutex(initial)
        if let manifest = configuration.manifest { deliver(.install(manifest)) }
        // This process is the app: it launches first, then its saved state comes back (requests
        // that fell due meanwhile wait for the launch to finish, with the handlers registered).
        deliver(.launch(configuration.app, .foreground))
        deliver(.activate(configuration.app))
        restoreFromStore()
        if configuration.launchCompletion == .firstMainActorTurn {
            onMainActor { [weak self] in self?.finishLaunching() }
        }
    }

    /// Ends the app's launch: registration of launch handlers closes (a later one is a fault,
    /// as on iOS) and due tasks can be handed over. Calling it again does nothing.
    public func finishLaunching() {
        deliver(.finishLaunching(app))
    }

    private func restoreFromStore() {
        guard let store = configuration.store else { return }
        do {
            for saved in try store.load(clock: wallClock) where saved.app == app {
                deliver(.restore(saved))
            }
        } catch {
            raise(
                BackgroundFault(
                    api: "EmbeddedSystem",
                    message: "the background store could not be read: \(error)",
                    app: app
                )
            )
        }
    }

    /// The current instant on the system's clock.
    public var now: Instant {
        if let manualClock { return manualClock.now }
        return SystemTime.bootClockNow
    }

    // MARK: SystemConnection

    public func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        let now = self.now
        if configuration.encodesMessages {
            return beginWithoutRoundTrip(named: name, at: site, expirationHandler: expirationHandler, now: now)
        }
        let fast = state.withLock { state -> AssertionID? in
            let id = state.core.beginAssertionInForeground(
                app,
                name: name,
                origin: site,
                hasExpirationHandler: expirationHandler != nil,
                at: now
            )
            return state.tables.recordBegin(id, handler: expirationHandler)
        }
        if let fast { return fast }
        let event = Event.beginAssertion(app, name: name, origin: site, hasExpirationHandler: expirationHandler != nil)
        let (reply, effects) = state.withLock { state -> (Reply?, [Effect]) in
            let reply = state.handleInfallible(event, at: now)
            _ = state.tables.recordBegin(reply, handler: expirationHandler)
            _ = persistBuffered(&state, keepingFailedChanges: true)
            return (reply, state.takeEffects())
        }
        // A denial's `.assertionDenied` calls the handler (S2).
        perform(effects, at: now, deniedHandler: expirationHandler)
        if case .granted(let id) = reply { return id }
        return nil
    }

    public func endAssertion(_ id: AssertionID) {
        let fast = state.withLock { state -> Bool? in
            // With no deadline pending, the time of an end changes nothing: skip reading the clock.
            let now = state.core.nextDeadline == nil ? state.core.now : self.now
            guard !state.encodesMessages else { return nil }
            let ended = state.core.endAssertionInForeground(app, id, at: now)
            if ended != nil { state.tables.recordEnd(id) }
            return ended
        }
        if let ended = fast {
            if !ended {
                perform([.log(LogRecord(.error, app: app, BackgroundSystem.unknownAssertionMessage(id)))], at: self.now)
            }
            return
        }
        let now = self.now
        let effects = state.withLock { state -> [Effect] in
            state.tables.recordEnd(id)
            state.handleInfallible(.endAssertion(app, id), at: now)
            _ = persistBuffered(&state, keepingFailedChanges: true)
            return state.takeEffects()
        }
        perform(effects, at: now)
    }

    /// The app's status, from the core, in one reading.
    package var status: AppStatus {
        let now = self.now
        return state.withLock { AppStatus($0.core, app: app, at: now) }
    }

    // MARK: Control

    /// The app's outstanding assertions, oldest first.
    public var assertions: [Assertion] {
        state.withLock { $0.core.assertions(of: app) }
    }

    /// Every termination report recorded (``TerminationBehavior/record``).
    public var terminationReports: [TerminationReport] {
        state.withLock { $0.reports }
    }

    /// Sends an event to the system, stamped with the system's clock.
    ///
    /// - Throws: ``BackgroundSystemError`` if the event is not allowed in the app's state.
    @discardableResult
    public func send(_ event: Event) throws(BackgroundSystemError) -> Reply? {
        let now = self.now
        let (reply, effects) = try state.withLock { state throws(BackgroundSystemError) -> (Reply?, [Effect]) in
            state.buffer.removeAll(keepingCapacity: true)
            let reply = try state.exchange(event, at: now)
            _ = persistBuffered(&state, keepingFailedChanges: true)
            return (reply, state.takeEffects())
        }
        perform(effects, at: now)
        return reply
    }

    /// Moves the app to the background, as the user pressing Home would (active → inactive →
    /// background). Does nothing if the app is not in the foreground.
    public func moveToBackground() {
        if lifecycleState == .active { deliver(.deactivate(app)) }
        if lifecycleState == .inactive { deliver(.enterBackground(app)) }
    }

    /// Brings the app back to the foreground and makes it active.
    public func moveToForeground() {
        let current = lifecycleState
        if current == .background || current == .suspended { deliver(.enterForeground(app)) }
        if lifecycleState == .inactive { deliver(.activate(app)) }
    }

    /// Changes the device's conditions (power, battery, network, use, unlock, Low Power Mode).
    public func setDevice(_ conditions: DeviceConditions) {
        deliver(.setDevice(conditions))
    }

    /// The device's conditions as the system sees them.
    public var device: DeviceConditions {
        state.withLock { $0.core.currentDevice }
    }

    /// Tasks handed to the app and not completed yet.
    public var runningTasks: [TaskRun] {
        state.withLock { $0.core.runningTasks(of: app) }
    }

    /// Changes a Background App Refresh setting (the system switch, the app's switch, Low Power
    /// Mode or a restriction).
    public func setBackgroundRefresh(_ setting: BackgroundRefreshSetting) {
        deliver(.setBackgroundRefresh(setting))
    }

    /// Handles an event and lets `inspect` see its reply while the state is locked; returns the
    /// reply, the effects to carry out and the instant.
    func handle(
        _ event: Event,
        inspect: (inout State, Reply?) -> Void = { _, _ in }
    ) -> (reply: Reply?, list: [Effect], at: Instant) {
        let now = self.now
        let (reply, effects) = state.withLock { state -> (Reply?, [Effect]) in
            let reply = state.handleInfallible(event, at: now)
            inspect(&state, reply)
            _ = persistBuffered(&state, keepingFailedChanges: true)
            return (reply, state.takeEffects())
        }
        return (reply, effects, now)
    }

    /// Delivers an event that is allowed in every state, or logs why it was not.
    func deliver(_ event: Event) {
        do {
            try send(event)
        } catch {
            configuration.logger.debug("event not applied: \(error)")
        }
    }
}

extension EmbeddedSystem.State {
    /// Handles an event that cannot fail validation (assertions, handler returns, ticks).
    @discardableResult
    mutating func handleInfallible(_ event: Event, at now: Instant) -> Reply? {
        buffer.removeAll(keepingCapacity: true)
        do {
            return try exchange(event, at: now)
        } catch {
            buffer.append(.log(LogRecord(.error, app: error.app, "internal: \(error)")))
            return nil
        }
    }

    /// The buffered effects, to carry out outside the lock; empty, and allocation-free, on the
    /// common path where an assertion was only granted or ended.
    mutating func takeEffects() -> [Effect] {
        guard !buffer.isEmpty else { return [] }
        let effects = Array(buffer)
        buffer.removeAll(keepingCapacity: true)
        return effects
    }
}
