public import BackgroundCore
public import BackgroundExecution
import BackgroundProtocol
import BackgroundReports
public import BackgroundStore
public import Logging
import Synchronization

/// The daemon's interpreter of the core: events in, effects carried out.
///
/// It drives the pure ``BackgroundSystem`` exactly as the embedded system and the simulator do:
/// every input (an app's call, a desktop's focus message, a timer, a process that exited)
/// becomes an event stamped with the boot clock; the effects that come back are carried out in
/// order: durable changes written to the store (in one transaction) before anything is
/// answered, app-addressed effects sent on that app's connection, `.suspend`/`.resume`/
/// `.terminate` handed to the ``AppProcesses``, reports written, and the one timer armed
/// at the core's next deadline (nothing polls: an idle daemon uses no CPU).
///
/// All of it happens under one lock, in the order events arrive; sending never blocks (see
/// ``ClientLink``), so no client can hold the lock.
public final class DaemonEngine: Sendable {
    /// How many of the latest log lines the daemon keeps for `bgctl daemon log` (without
    /// `--follow`): at most this many, at least half of it once full.
    public static let recentLogLines = 400

    /// How an engine is set up.
    public struct Configuration: Sendable {
        /// The numbers in force.
        public var policy: SystemPolicy
        /// The device's conditions.
        public var device: DeviceConditions
        /// Where termination reports are written; nil writes none.
        public var reportsDirectory: String?
        /// Where the event journal (`bgctl timeline`) is written; nil keeps none.
        public var journalPath: String?
        /// The logger.
        public var logger: Logger
        /// How long a running app the previous run of the daemon started has to connect again
        /// after a restart; nil: half the background budget, at most 10 s
        /// (`DaemonEngine+Restart.swift`).
        public var restartGrace: Duration?
        /// Whether apps run under uids of their own: who may connect as an app
        /// (`PeerIdentity.swift`) and what `bgctl daemon status` says.
        public var isolation: AppIsolation
        /// Where the device's conditions are read, and whether overrides are accepted
        /// (`DaemonDevice.swift`); by default ``device`` with source `default`, no overrides.
        public var deviceSettings = DaemonDevice.Settings()
        /// Reads the installed apps again, with the checks of the start
        /// (``DaemonEngine/reloadManifests()``); nil: the apps given at the start are the only ones.
        public var manifestLoader: (@Sendable () throws(DaemonError) -> ManifestDirectory)?

        /// Creates a configuration: iOS's numbers and a server's device by default.
        public init(
            policy: SystemPolicy = .iOS,
            device: DeviceConditions = EmbeddedSystem.serverDevice,
            reportsDirectory: String? = nil,
            journalPath: String? = nil,
            logger: Logger = Logger(label: "backgroundd"),
            restartGrace: Duration? = nil,
            isolation: AppIsolation = .sharedWithDaemon
        ) {
            self.policy = policy
            self.device = device
            self.reportsDirectory = reportsDirectory
            self.journalPath = journalPath
            self.logger = logger
            self.restartGrace = restartGrace
            self.isolation = isolation
        }
    }

    struct Session {
        let link: any ClientLink
        var role: Role
        enum Role {
            case awaitingHello
            /// A connection the daemon made for an app it started, before the app's hello.
            case inherited(AppID)
            case app(AppID)
            case control(followsLog: Bool)
        }
    }

    struct State {
        var core: BackgroundSystem
        var installed: [AppID: InstalledApp] = [:]
        var sessions: [Int: Session] = [:]
        /// The connection of each app's current process.
        var appLinks: [AppID: Int] = [:]
        /// Apps whose own process is saying hello: their `.launch` is that process, not a spawn.
        var connecting: Set<AppID> = []
        /// Apps whose current process the daemon started (it kills them; the others it cannot).
        var started: Set<AppID> = []
        /// Apps whose current process the user started and the process control took under its
        /// control at its hello: frozen, thawed and killed like a started one, let go when its
        /// connection closes (``AppProcesses/admit(_:peer:)``).
        var admitted: Set<AppID> = []
        /// Apps whose current process, started by the user, cannot be frozen, and why: reported
        /// instead of `suspended` (`bgctl daemon apps`, `status`).
        var notFrozen: [AppID: String] = [:]
        /// The latest log lines, oldest first: at most ``DaemonEngine/recentLogLines``.
        var recentLog: [String] = []
        /// Apps whose process a previous run started being carried on: their `.launch` is that
        /// process, not a spawn.
        var adopting: Set<AppID> = []
        /// The running survivors whose background wake stays open while they connect again.
        var restartGraces: [AppID: RestartGrace] = [:]
        /// The processes the previous run started that this run adopted, by app.
        var adopted: [AppID: AdoptedRecord] = [:]
        /// The apps in the background, and where each one's background time stood at its last
        /// journal reading (`DaemonEngine+Budget.swift`).
        var inBackground: Set<AppID> = []
        var budgetCourses: [AppID: BudgetCourse] = [:]
        /// The calls made for survivors at the restart that they may make again once.
        var redeclarable: [AppID: Set<Redeclaration>] = [:]
        /// Effects for apps the daemon launched whose process has not said hello yet: sent after
        /// its welcome, in order.
        var awaitingConnection: [AppID: [Effect]] = [:]
        /// The grant state each connected app's runtime last received (in its welcome or a
        /// push): a change that matters to its decisions is pushed (`DaemonEngine+GrantPushes`).
        var pushedGrants: [AppID: GrantState] = [:]
        /// Changes the store could not take yet, written first with the next batch.
        var unsaved: [StoreChange] = []
        var buffer: [Effect] = []
        var reportsWritten: [String] = []
        /// The locks each app was found holding in a shared container when it was to be frozen,
        /// for its `0xdead10cc` report (see `DaemonEngine+SharedLocks.swift`).
        var locksAtSuspension: [AppID: [TerminationReportDocument.HeldLock]] = [:]
        var launchesFailed = 0
        /// The daemon is stopping (``DaemonEngine/endStartedApps(within:)``): nothing is launched,
        /// and an app's end leaves its process to exit by itself until the stop's time limit.
        var stopping = false
        var eventsHandled = 0
    }

    /// The configuration.
    public let configuration: Configuration
    let state: Mutex<State>
    let store: BackgroundStore
    let processes: any AppProcesses
    let clock: @Sendable () -> Instant
    let wallClock: WallClock
    let wakeups: any WakeupScheduler
    let journal: EventJournal?
    /// The device's conditions, their sources and the developer's overrides.
    public let device: DaemonDevice
    /// The background transfers the daemon runs (``runTransfers(_:)``, `DaemonEngine+Transfers.swift`).
    let transferHost = Mutex<DaemonTransfers?>(nil)
    /// Held for a whole manifest reload: two run one after the other (DaemonEngine+Reload.swift).
    let reloading = Mutex(())
    var logger: Logger { configuration.logger }

    /// Creates an engine over `store`, installs `apps`, carries on with the `survivors` a
    /// previous run started, and restores what the store holds.
    ///
    /// - Parameters:
    ///   - survivors: What ``AppProcesses/adoptSurvivors(of:)`` took over (after the daemon's
    ///     own restart); told to the core before the store's requests can fall due.
    ///   - clock: The boot clock by default; tests pass a settable one.
    ///   - wakeups: Arms the one timer; by default a task sleeping until the deadline.
    /// - Throws: ``DaemonError`` with code `.store` if the store cannot be read: the daemon never
    ///   starts over a store it could not read.
    public init(
        configuration: Configuration,
        store: BackgroundStore,
        apps: [InstalledApp],
        processes: any AppProcesses,
        survivors: [AdoptedProcess] = [],
        clock: @escaping @Sendable () -> Instant = { SystemTime.bootClockNow },
        wallClock: WallClock? = nil,
        wakeups: (any WakeupScheduler)? = nil
    ) throws(DaemonError) {
        self.configuration = configuration
        self.store = store
        self.processes = processes
        self.clock = clock
        let now = clock()
        self.wallClock = wallClock ?? WallClock(unixSecondsAtOrigin: EventJournal.unixNow() - now.seconds)
        self.wakeups = wakeups ?? TaskWakeups()
        self.journal = configuration.journalPath.map { EventJournal(path: $0, logger: configuration.logger) }
        self.device = DaemonDevice(
            settings: configuration.deviceSettings,
            configured: configuration.device,
            memoryPolicy: configuration.policy.memory,
            logger: configuration.logger
        )
        var initial = State(core: BackgroundSystem(policy: configuration.policy, device: device.conditions))
        for app in apps { initial.installed[app.id] = app }
        self.state = Mutex(initial)
        try restore(apps, survivors: survivors)
    }

    private func restore(_ apps: [InstalledApp], survivors: [AdoptedProcess]) throws(DaemonError) {
        let saved: [PersistedApp]
        do {
            saved = try store.load(clock: wallClock)
        } catch {
            throw DaemonError(.store, "the store \(store.path) cannot be read: \(error)")
        }
        for app in apps { deliver(.install(app.manifest)) }
        adopt(survivors)
        let installed = Set(apps.map(\.id))
        for record in saved.sorted(by: { $0.app < $1.app }) {
            guard installed.contains(record.app) else {
                logger.notice("\(record.app): in the store but not installed; its records are kept untouched")
                continue
            }
            deliver(.restore(record))
        }
    }

    /// The current instant.
    public var now: Instant { clock() }

    /// Handles an event from the daemon itself or the desktop (not from an app's connection),
    /// stamped now, and carries out its effects.
    ///
    /// - Returns: The reply, or nil; a refused event is logged and answers nil.
    @discardableResult
    public func deliver(_ event: Event) -> Reply? {
        handle(event, answering: nil).reply
    }

    /// Handles an event, carries out its effects, and returns the reply and the effects for the
    /// app whose connection `answering` sent it (those are answered, not pushed).
    func handle(_ event: Event, answering: AppID?) -> (reply: Reply?, forCaller: [Effect]) {
        var outbox = Outbox()
        var carriedOut: [Effect] = []
        let result = state.withLock { state -> (Reply?, [Effect]) in
            let now = clock()
            state.buffer.removeAll(keepingCapacity: true)
            var reply: Reply?
            do {
                reply = try state.core.handle(event, at: now, into: &state.buffer)
            } catch {
                logger.notice("event not applied: \(error)")
                return (nil, [])
            }
            state.eventsHandled += 1
            journal?.record(event: event, reply: reply, at: wallClock.unixSeconds(of: now))
            let effects = state.buffer
            carriedOut = effects
            persist(effects, in: &state)
            recordBudgets(after: effects, in: &state, at: now)
            // The app's runtime decides from its grant state: a change goes first.
            pushGrantStates(after: effects, caller: answering, at: now, in: &state, outbox: &outbox)
            var forCaller: [Effect] = []
            for effect in effects {
                journal?.record(effect: effect, at: wallClock.unixSeconds(of: now))
                if let answering, effect.audienceApp == answering {
                    forCaller.append(effect)
                    carryOutSystemPart(effect, in: &state, outbox: &outbox)
                } else {
                    carryOut(effect, in: &state, outbox: &outbox)
                }
            }
            return (reply, forCaller)
        }
        journal?.flush()
        outbox.flush()
        transfersObserve(carriedOut)
        return result
    }

    /// Writes the batch's durable changes in one transaction before anything is answered.
    private func persist(_ effects: [Effect], in state: inout State) {
        var changes = state.unsaved
        for case .persist(let change) in effects { changes.append(change) }
        guard !changes.isEmpty else { return }
        do {
            try store.apply(changes, clock: wallClock)
            state.unsaved = []
        } catch {
            state.unsaved = changes
            logger.error("the store could not be written (kept for the next write): \(error)")
        }
    }

    /// Delivers a tick: what fell due runs (restart graces that ended first).
    public func tick() {
        endRestartGraces()
        deliver(.tick)
        transfers?.tick(at: now)
    }
}

/// Work decided under the lock and done after it: sends and closes, which must not run while
/// the engine's state is locked (a link may call back).
struct Outbox {
    var sends: [(any ClientLink, DaemonResponse)] = []
    var closes: [(any ClientLink, String)] = []

    mutating func send(_ response: DaemonResponse, to link: any ClientLink) { sends.append((link, response)) }
    mutating func close(_ link: any ClientLink, reason: String) { closes.append((link, reason)) }

    func flush() {
        for (link, response) in sends { link.send(response) }
        for (link, reason) in closes { link.close(reason: reason) }
    }
}
