public import BackgroundCore
public import BackgroundExecution

/// One run of a simulated app's process, from its launch to its end: what its launch code
/// receives.
///
/// A process holds what a real one would lose when it ends: its `UIApplication`, its delegate,
/// its registered launch handlers, its tasks and what its background sessions hold. Work
/// scheduled with ``after(_:_:)`` belongs to it: it waits while the process is suspended and is
/// dropped when the process ends. Calls that objects of an ended process still make (a `BGTask`
/// kept somewhere, an old `UIApplication`) reach nothing: they are logged and ignored, and
/// `submit` neither succeeds nor throws.
///
/// Suspension takes effect for the process's next piece of work: the code running when the
/// system suspends it (typically the call that ended its last background task) runs to its
/// end. The system itself considers the app suspended from that call on, so a background task
/// begun later in the same code is not granted; begin the next task before ending the last.
@MainActor
public final class AppProcess {
    /// The app.
    public let app: AppID
    /// How this process was launched: by the user (foreground) or the system (background).
    public let launchKind: LaunchKind
    /// The process's application object; `UIApplication.shared` while its code runs.
    public let application: UIApplication
    unowned let simulator: Simulator
    let serial: Int
    var isAlive = true
    var isFrozen = false
    var deferred: [@MainActor () -> Void] = []
    var mainThreadFreeAt: Instant = .zero
    /// The app runtime's tables of this process (the same runtime users run), as they are now.
    var tables: RuntimeTables { connection.withTables { $0 } }
    /// The system's identifiers of the assertions begun off the main actor, by provisional
    /// identifier (`nil`: the system denied it on arrival); see `ProvisionalAssertions`.
    var provisionalAssertions: [Int: AssertionID?] = [:]
    /// The transport under the process's runtime.
    let connection: SimulatedConnection
    var hasFinishedLaunching = false
    private var kept: [AnyObject] = []
    /// What the background sessions its code created let go of when it ends (their tasks,
    /// which hold them): app code rarely invalidates a session, and a device frees it with the
    /// process's memory.
    var sessionReleases: [@Sendable () -> Void] = []

    init(app: AppID, launchKind: LaunchKind, serial: Int, simulator: Simulator) {
        self.app = app
        self.launchKind = launchKind
        self.serial = serial
        self.simulator = simulator
        let connection = SimulatedConnection(app: app, serial: serial, simulator: simulator)
        self.connection = connection
        self.application = UIApplication(connection: connection)
    }

    /// The app's delegate, kept alive for the life of the process (`UIApplication` holds its
    /// delegate weakly, as UIKit does). Set it in the launch code.
    public var delegate: (any UIApplicationDelegate)? {
        didSet {
            application.delegate = delegate
            if let delegate { kept.append(delegate) }
        }
    }

    /// Keeps `object` alive as long as the process runs (app state a real process would hold).
    public func keep(_ object: AnyObject) {
        kept.append(object)
    }

    /// Runs `work` `delay` from now, as this process's code, in virtual time.
    public func after(_ delay: Duration, _ work: @escaping @MainActor () -> Void) {
        simulator.schedule(at: simulator.now + delay, .app(self, work))
    }

    /// Keeps the process's main thread busy for `duration`, as slow synchronous code would: its
    /// other main-actor work, and the return of the callback running now, wait until then. Use
    /// it to model a slow expiration handler or a slow `applicationDidEnterBackground(_:)`.
    public func blockMainThread(for duration: Duration) {
        mainThreadFreeAt = max(mainThreadFreeAt, simulator.now) + duration
    }

    /// Whether the process has ended (the system, the user or a reboot ended it). A suspended
    /// process has not ended.
    public var hasEnded: Bool { !isAlive }

    func end() {
        isAlive = false
        // A task's expiration handler usually captures the task (and often this process):
        // dropped with the process, as a device frees a process's memory.
        for task in connection.endTables().liveTasks.values { _ = task.value.takeExpirationHandler() }
        deferred = []
        provisionalAssertions = [:]
        connection.publishEnded()
        delegate = nil  // delegates often hold their process
        kept = []
        let releases = sessionReleases
        sessionReleases = []
        for release in releases { release() }
    }
}

/// An installed app: its identity, manifest and launch code.
struct InstalledApp {
    let id: AppID
    let manifest: AppManifest
    let launch: @MainActor (AppProcess) -> Void
}

extension Simulator {
    /// Installs an app.
    ///
    /// - Parameters:
    ///   - app: The app's bundle identifier.
    ///   - manifest: Its `Info.plist` keys; defaults to none (no task identifier permitted).
    ///   - launch: Runs at every launch of its process, foreground or background, before the
    ///     launch finishes: register launch handlers, set the delegate, submit requests.
    /// - Returns: The app's identifier, for the drivers and queries.
    @discardableResult
    public func install(
        _ app: AppID,
        manifest: AppManifest? = nil,
        launch: @escaping @MainActor (AppProcess) -> Void = { _ in }
    ) -> AppID {
        let manifest = manifest ?? AppManifest(bundleIdentifier: app)
        installed.removeAll { $0.id == app }
        installed.append(InstalledApp(id: app, manifest: manifest, launch: launch))
        send(.install(manifest))
        return app
    }

    /// Installs an app whose manifest permits these task identifiers and background modes.
    @discardableResult
    public func install(
        _ app: AppID,
        permittedTaskIdentifiers: [String],
        backgroundModes: Set<BackgroundMode> = [],
        launch: @escaping @MainActor (AppProcess) -> Void = { _ in }
    ) -> AppID {
        let manifest = AppManifest(
            bundleIdentifier: app,
            permittedTaskIdentifiers: permittedTaskIdentifiers,
            backgroundModes: backgroundModes
        )
        return install(app, manifest: manifest, launch: launch)
    }

    /// Starts a process for an app the system launched or the user opened; its launch code
    /// runs first among its main-actor work.
    @discardableResult
    func startProcess(_ app: AppID, kind: LaunchKind) -> AppProcess {
        processes[app]?.end()
        nextProcessSerial += 1
        let process = AppProcess(app: app, launchKind: kind, serial: nextProcessSerial, simulator: self)
        processes[app] = process
        let installedApp = installed.first { $0.id == app }
        if let modes = installedApp?.manifest.backgroundModes {
            process.connection.view.withLock { $0.declaredModes = modes }
        }
        publish(process)
        let launch = installedApp?.launch
        schedule(at: now, .app(process, { launch?(process) }))
        return process
    }

    /// A stand-in for a process that has ended, for calls its leftover objects still make.
    func endedProcess(_ app: AppID, serial: Int) -> AppProcess {
        let process = AppProcess(app: app, launchKind: .background, serial: serial, simulator: self)
        process.end()
        return process
    }

    /// Ends an app's process: its pending work, handlers and tasks go with it, and a run it had
    /// not completed ends as killed.
    func endProcess(_ app: AppID) {
        processes.removeValue(forKey: app)?.end()
        transferEngine?.processEnded(app)
        let killed = runIndex.filter { runRecords[$0.value].app == app }
        for (id, index) in killed.sorted(by: { $0.value < $1.value }) {
            runRecords[index].finish(.killed, at: now)
            runIndex[id] = nil
        }
        backgroundApps.remove(app)
        lastBudgetSample[app] = nil
        if foregroundApp == app { foregroundApp = nil }
    }
}
