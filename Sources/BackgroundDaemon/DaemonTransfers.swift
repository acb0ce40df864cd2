public import BackgroundCore
import BackgroundExecution
import BackgroundPosix
import BackgroundProtocol
import BackgroundStore
public import BackgroundTransfers
import Foundation
public import Logging
import Synchronization

/// The background transfers `backgroundd` runs for its apps, out of their processes: each app's
/// transfers run in an ``EmbeddedTransfers`` of the daemon's (the same engine and rules as
/// embedded mode), over the daemon's store and in the app's container, so they go on while the
/// app is frozen or not running.
///
/// Events reach a process that is running and has attached the session (pushed at once);
/// otherwise progress is kept (coalesced per task) and completions stay in the store, and the
/// app is launched or resumed in the background for them, within Apple's relaunch delay (the
/// core's ``TransferQueue``), when the session sends launch events. After its launch callbacks
/// the app gets `handleEventsForBackgroundURLSession`, recreates the session (``TransferCall/attach(_:)``)
/// and receives the events in order; the daemon keeps its background wake open until the app
/// calls the completion handler (``TransferCall/eventsHandled(session:)``), at most
/// ``Configuration/eventsTimeLimit``.
public final class DaemonTransfers: Sendable {
    /// How the daemon runs transfers.
    public struct Configuration: Sendable {
        /// Where the containers of apps whose manifest names no `WorkingDirectory` are made
        /// (`<state>/containers/<bundle identifier>`, 0700).
        public var containers: String
        /// Retries, checkpoints and bounds.
        public var policy: TransferPolicy
        /// How long the daemon keeps an app's background wake open for it to handle its
        /// sessions' events (**ours**; Apple's is about 30 s): less than the core's
        /// `backgroundWakeTimeLimit` (20 s), so an app that never calls the completion handler is
        /// suspended, not ended by the watchdog.
        public var eventsTimeLimit: Duration
        /// The logger.
        public var logger: Logger

        /// Creates a configuration.
        public init(
            containers: String,
            policy: TransferPolicy = TransferPolicy(),
            eventsTimeLimit: Duration = TransferEventWakes.defaultTimeLimit,
            logger: Logger = Logger(label: "backgroundd.transfers")
        ) {
            self.containers = containers
            self.policy = policy
            self.eventsTimeLimit = eventsTimeLimit
            self.logger = logger
        }
    }

    struct SessionEntry {
        var options: TransferSessionOptions
        /// The connection of the process that attached the session; events go there.
        var attachedBy: Int?
        /// Progress not yet sent, the latest per task (bytes since the last one sent summed).
        var progress: [Int: TransferNotice] = [:]
        /// Completions sent to `attachedBy`.
        var sent: Set<Int> = []
        /// Completions not sent to any process yet.
        var ready: Set<Int> = []
    }

    struct AppEntry {
        let engine: EmbeddedTransfers
        var sessions: [String: SessionEntry] = [:]
    }

    /// The configuration.
    public let configuration: Configuration
    let store: any TransferCheckpointStore
    let apps = Mutex<[AppID: AppEntry]>([:])
    /// Which apps are woken for their sessions' events, or wait for a wake: the core's rule
    /// (``TransferEventWakes``), on the engine's clock. Never locked while `apps` or the engine's
    /// state is taken under it.
    let wakes: Mutex<TransferEventWakes>
    let engineSlot = Mutex<DaemonEngine?>(nil)
    /// What the journal last said of each transfer that has not ended (`DaemonTransfers+Journal.swift`).
    let journaled = Mutex<[TransferKey: JournalEntry.TransferReading]>([:])
    var logger: Logger { configuration.logger }

    /// Creates the transfers of `apps` (their stored transfers resume at once, or their events
    /// wait for the app).
    public init(configuration: Configuration, store: any TransferCheckpointStore) {
        self.configuration = configuration
        self.store = store
        self.wakes = Mutex(TransferEventWakes(timeLimit: configuration.eventsTimeLimit))
    }

    var engine: DaemonEngine? { engineSlot.withLock { $0 } }
}

extension DaemonTransfers {
    /// Binds the daemon's engine and restores every installed app's stored transfers: running
    /// ones resume from their checkpoint, completed ones wait for the app.
    func start(engine: DaemonEngine, apps installed: [InstalledApp]) {
        engineSlot.withLock { $0 = engine }
        for app in installed.sorted(by: { $0.id < $1.id }) {
            let stored: [TransferCheckpoint]
            do {
                stored = try store.transfers(of: app.id)
            } catch {
                logger.error("\(app.id): its stored transfers cannot be read: \(error)")
                continue
            }
            guard !stored.isEmpty, let entry = makeEntry(for: app) else { continue }
            apps.withLock { $0[app.id] = entry }
            for session in Set(stored.map(\.session)).sorted() {
                // The options kept with the session's latest transfer (Apple's defaults for rows
                // written before they were kept), until the app attaches it again.
                let latest = stored.filter { $0.session == session }.max { $0.task < $1.task }
                var options = latest?.sessionOptions ?? TransferSessionOptions(app: app.id, session: session)
                options.app = app.id
                options.session = session
                // Read back from the store, so checked as an app's attach is (timeouts that
                // would trap in the engine's arithmetic, issue 25).
                if let why = TransferCall.attach(options).problem(from: app.id) {
                    logger.warning("\(app.id): the stored options of \(session) are refused (\(why)); defaults apply")
                    options = TransferSessionOptions(app: app.id, session: session)
                }
                attachForDaemon(options, engine: entry.engine)
            }
            logger.notice("\(app.id): \(stored.count) transfer(s) restored from the store")
            journalChanges(of: app.id)
        }
    }

    /// The app's entry, made on first use (its container opened or created).
    func entry(for app: AppID) -> AppEntry? {
        if let entry = apps.withLock({ $0[app] }) { return entry }
        guard let installed = engine?.installedApp(app), let made = makeEntry(for: installed) else { return nil }
        return apps.withLock { apps in
            if let entry = apps[app] { return entry }
            apps[app] = made
            return made
        }
    }

    private func makeEntry(for app: InstalledApp) -> AppEntry? {
        let root = app.launch?.workingDirectory ?? configuration.containers + "/" + app.id.bundleIdentifier
        do {
            let container = try self.container(of: app, root: root)
            let engine = EmbeddedTransfers(
                configuration: .init(
                    app: app.id,
                    container: container,
                    store: store,
                    policy: configuration.policy,
                    logger: logger
                )
            )
            if let reading = self.engine?.device.reading {
                engine.setDevice(reading.conditions, network: reading.transferNetwork)
            }
            return AppEntry(engine: engine)
        } catch {
            logger.error("\(app.id): no container for its transfers at \(root): \(error)")
            return nil
        }
    }

    /// The device changed (``DaemonDevice``'s probes or overrides): every app's transfers are
    /// scheduled by it, so discretionary ones wait for external power and an unmetered network,
    /// and a running transfer whose network its session refuses pauses at its checkpoint.
    public func setDevice(_ conditions: DeviceConditions, network: TransferNetwork) {
        let engines = apps.withLock { apps in
            apps.keys.sorted().compactMap { app in apps[app].map { (app, $0.engine) } }
        }
        for (app, engine) in engines {
            engine.setDevice(conditions, network: network)
            journalChanges(of: app)
        }
    }

    /// The app's container. With per-app uids (the app has a user): its own container,
    /// `<containers>/<bundle identifier>`, made or checked as for its launch (`0700`, the app's
    /// uid), whatever its manifest's working directory, and every file and directory the
    /// transfers make in it is the app's. Otherwise the manifest's working directory, else
    /// `<containers>/<bundle identifier>` (`0700`, the daemon's).
    private func container(of app: InstalledApp, root: String) throws -> TransferContainer {
        if let user = app.user {
            let path = try AppContainer.prepare(app, user: user, containers: configuration.containers)
            return try TransferContainer(root: path, owner: .init(uid: user.uid, gid: user.gid))
        }
        if app.launch?.workingDirectory == nil {
            _ = try SecureDirectory.open(configuration.containers, access: .privateToOwner)
        }
        return try TransferContainer(root: root)
    }

    /// The transfers of `app` that have not completed, running or waiting with why
    /// (``Eligibility``, as `bgctl why` words it); nil for an app with no transfers here.
    public func transferStatus(of app: AppID) -> TransferStatus? {
        apps.withLock { $0[app] }?.engine.transferStatus()
    }

    /// The options a session of `app` runs with now (as the app attached it, or as kept with
    /// its transfers after a restart); nil for a session the daemon does not know.
    public func sessionOptions(of app: AppID, session: String) -> TransferSessionOptions? {
        apps.withLock { $0[app]?.sessions[session]?.options }
    }

    /// Attaches a session to the engine with the daemon's own sink (the engine's events always
    /// come here; this file routes them).
    @discardableResult
    func attachForDaemon(_ options: TransferSessionOptions, engine: EmbeddedTransfers) -> [TransferCheckpoint] {
        let app = options.app
        let session = options.session
        apps.withLock { apps in
            if apps[app]?.sessions[session] == nil {
                apps[app]?.sessions[session] = SessionEntry(options: options)
            } else {
                apps[app]?.sessions[session]?.options = options
            }
        }
        return engine.attach(options) { [weak self] event in self?.engineEvent(event, app: app, session: session) }
    }
}
