import BackgroundCore
import BackgroundDaemon
import BackgroundProtocol
import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Logging
import Synchronization
import Testing

@testable import BackgroundExecution

/// The transports the conformance suite runs on: one app side, three ways to reach the system.
enum ConformanceTransport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// ``EmbeddedSystem`` on a ``ManualClock``: the core in the app's process.
    case embedded
    /// The simulator: the core on a virtual phone, the app as a simulated process.
    case simulator
    /// The daemon's engine in this process, on a clock the test moves, and the real
    /// ``DaemonConnection`` over a socket pair (the wire protocol, a reader thread, the main queue).
    case daemon

    var testDescription: String { rawValue }

    /// A driver for this transport, with the app installed (not launched yet); `scenes` gives
    /// the app ``ConformanceApp/sceneManifest``, so it is scene-based.
    @MainActor
    func driver(scenes: Bool = false) throws -> any ConformanceDriver {
        let sceneManifest = scenes ? ConformanceApp.sceneManifest : nil
        switch self {
        case .embedded: return EmbeddedDriver(sceneManifest: sceneManifest)
        case .simulator: return SimulatorDriver(sceneManifest: sceneManifest)
        case .daemon: return try DaemonDriver(sceneManifest: sceneManifest)
        }
    }
}

/// The app every case runs: the daemon fixture's first app, with the same manifest everywhere.
enum ConformanceApp {
    static let id = EngineFixture.notes
    static let refresh = "\(EngineFixture.notes.bundleIdentifier).refresh"
    static let manifest = AppManifest(
        bundleIdentifier: EngineFixture.notes,
        permittedTaskIdentifiers: [refresh],
        backgroundModes: [.fetch, .processing, .audio, .remoteNotification]
    )
    /// The `UIApplicationSceneManifest` of the scene cases: the template's, naming the test's
    /// scene delegate class as `$(PRODUCT_MODULE_NAME).SceneDelegate` is named in an Xcode project.
    static let sceneManifest = SceneManifest(
        configurations: [
            .init(
                role: SceneManifest.windowApplicationRole,
                name: "Default Configuration",
                delegateClassName: "$(PRODUCT_MODULE_NAME).ConformanceSceneDelegate"
            )
        ]
    )
    /// The manifest with `sceneManifest`, or without.
    static func manifest(sceneManifest: SceneManifest?) -> AppManifest {
        var manifest = Self.manifest
        manifest.sceneManifest = sceneManifest
        return manifest
    }
    /// A silent push's payload.
    static let silentPush = #"{"aps":{"content-available":1}}"#
}

/// One system under test, driven the same way whatever the transport: the user's actions, time,
/// and what the app and the system can be asked.
@MainActor
protocol ConformanceDriver: AnyObject {
    /// Launches the app into the foreground as the user opening it: `delegate` becomes its
    /// delegate, and `launchCode` runs as the app's launch code (before its launch is over).
    func launch(_ delegate: ConformanceDelegate, launchCode: @escaping @MainActor (UIApplication) -> Void) async
    /// The app's application object (after ``launch(_:launchCode:)``).
    var application: UIApplication { get }
    /// The user goes to the Home screen.
    func home() async
    /// The user opens the app again.
    func open() async
    /// Moves time on by `duration`, carrying out everything that falls due on the way, in order.
    func advance(by duration: Duration) async
    /// Lets the app's main actor and the system take in everything already sent, on either side.
    func settle() async
    /// A silent push for the app arrives, as APNs would deliver it.
    func push(_ payload: String) async
    /// The app's state as the system sees it.
    var systemState: AppLifecycleState { get }
    /// The termination reports the app's side received (or the process's end recorded).
    var reports: [TerminationReport] { get }
}

/// What every case records: the app's callbacks and code, in order, as the app saw them.
final class ConformanceDelegate: UIResponder, UIApplicationDelegate, @unchecked Sendable {
    let log = CallLog()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        log.record("didFinishLaunching")
        return true
    }

    func applicationDidBecomeActive(_ application: UIApplication) { log.record("didBecomeActive") }
    func applicationWillResignActive(_ application: UIApplication) { log.record("willResignActive") }
    func applicationDidEnterBackground(_ application: UIApplication) {
        log.record("didEnterBackground")
        onEnterBackground?(application)
    }
    func applicationWillEnterForeground(_ application: UIApplication) { log.record("willEnterForeground") }

    func application(
        _ application: UIApplication,
        didReceiveRemoteNotification userInfo: [AnyHashable: Any],
        fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void
    ) {
        log.record("didReceiveRemoteNotification " + (MainActorThread.isCurrent ? "on the main actor" : "off it"))
        completionHandler(.newData)
    }

    /// Code a case runs in `applicationDidEnterBackground(_:)`, after it is recorded.
    var onEnterBackground: (@MainActor (UIApplication) -> Void)?

    /// A scene-based app's template answer: a configuration named as the manifest's, whose
    /// delegate class the system fills from the manifest. The session carries the log to the
    /// scene delegate, which the system creates.
    func application(
        _ application: UIApplication,
        configurationForConnecting connectingSceneSession: UISceneSession,
        options: UIScene.ConnectionOptions
    ) -> UISceneConfiguration {
        log.record("configurationForConnecting")
        connectingSceneSession.userInfo = ["log": log]
        return UISceneConfiguration(name: "Default Configuration", sessionRole: connectingSceneSession.role)
    }
}

/// The scene delegate of the scene cases, as Xcode's template writes it; the system creates it
/// from the manifest's `UISceneDelegateClassName`, with its `init()`.
final class ConformanceSceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?
    private var log: CallLog?

    func scene(
        _ scene: UIScene,
        willConnectTo session: UISceneSession,
        options connectionOptions: UIScene.ConnectionOptions
    ) {
        guard let windowScene = (scene as? UIWindowScene) else { return }
        window = UIWindow(windowScene: windowScene)
        window?.makeKeyAndVisible()
        log = session.userInfo?["log"] as? CallLog
        log?.record("scene(_:willConnectTo:options:) \(scene.activationState)")
    }

    func sceneDidDisconnect(_ scene: UIScene) { log?.record("sceneDidDisconnect") }
    func sceneDidBecomeActive(_ scene: UIScene) { log?.record("sceneDidBecomeActive \(scene.activationState)") }
    func sceneWillResignActive(_ scene: UIScene) { log?.record("sceneWillResignActive \(scene.activationState)") }
    func sceneWillEnterForeground(_ scene: UIScene) {
        log?.record("sceneWillEnterForeground \(scene.activationState)")
    }
    func sceneDidEnterBackground(_ scene: UIScene) { log?.record("sceneDidEnterBackground \(scene.activationState)") }
}

/// An analytics SDK's lifecycle monitor: it observes the scene's and the application's
/// notifications (it cannot know whether the app uses scenes) and flushes its queue under a
/// background task when the app leaves the foreground.
@MainActor
final class LifecycleMonitor {
    private let log: CallLog
    private let application: UIApplication
    private var observers: [any NSObjectProtocol] = []
    private(set) var flush = UIBackgroundTaskIdentifier.invalid

    init(log: CallLog, application: UIApplication) {
        self.log = log
        self.application = application
        let scene = [
            UIScene.willConnectNotification, UIScene.willEnterForegroundNotification, UIScene.didActivateNotification,
            UIScene.willDeactivateNotification, UIScene.didEnterBackgroundNotification,
            UIScene.didDisconnectNotification,
        ]
        let app = [
            UIApplication.didFinishLaunchingNotification, UIApplication.willEnterForegroundNotification,
            UIApplication.didBecomeActiveNotification, UIApplication.willResignActiveNotification,
            UIApplication.didEnterBackgroundNotification,
        ]
        let center = NotificationCenter.default
        for name in scene {
            observers.append(
                center.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                    let object = UncheckedSendable(note.object)
                    MainActor.assumeIsolated { self?.sceneNote(name, object: object.value) }
                }
            )
        }
        for name in app {
            observers.append(
                center.addObserver(forName: name, object: application, queue: nil) { [weak self] _ in
                    MainActor.assumeIsolated { self?.appNote(name) }
                }
            )
        }
    }

    isolated deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    /// A scene notification, if it is about this app's scene (the center is the process's).
    private func sceneNote(_ name: Notification.Name, object: Any?) {
        guard let scene = object as? UIScene, (scene.session.userInfo?["log"] as? CallLog) === log else { return }
        log.record("note \(name.rawValue)")
        if name == UIScene.didEnterBackgroundNotification {
            flush = application.beginBackgroundTask(withName: "Flush") { [weak self] in self?.endFlush() }
            log.record(flush == .invalid ? "Flush denied" : "Flush began")
        }
    }

    private func appNote(_ name: Notification.Name) {
        log.record("note \(name.rawValue)")
    }

    /// The upload finished (or its time ran out).
    func endFlush() {
        guard flush != .invalid else { return }
        log.record("Flush ended")
        application.endBackgroundTask(flush)
        flush = .invalid
    }
}

// MARK: Embedded

@MainActor
final class EmbeddedDriver: ConformanceDriver {
    let clock = ManualClock()
    let system: EmbeddedSystem
    private var app: UIApplication?

    init(sceneManifest: SceneManifest?) {
        system = EmbeddedSystem(
            configuration: .init(
                app: ConformanceApp.id,
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                printsReportsToStandardError: false,
                logger: Logger(label: "conformance", factory: { _ in SwiftLogNoOpLogHandler() }),
                manifest: ConformanceApp.manifest(sceneManifest: sceneManifest)
            )
        )
    }

    func launch(_ delegate: ConformanceDelegate, launchCode: @escaping @MainActor (UIApplication) -> Void) async {
        let application = UIApplication(connection: system)
        application.delegate = delegate
        app = application
        launchCode(application)
        ApplicationMain.deliverLaunch(application)
        clock.runPending()  // the launch is over at the first turn of the main actor
    }

    var application: UIApplication { app! }
    func home() async {
        system.moveToBackground()
        clock.runPending()
    }

    func open() async {
        system.moveToForeground()
        clock.runPending()
    }
    func advance(by duration: Duration) async { clock.advance(by: duration) }
    func settle() async { clock.runPending() }

    func push(_ payload: String) async {
        system.deliverRemoteNotification(try! RemoteNotificationPayload(json: payload))
        clock.runPending()
    }
    var systemState: AppLifecycleState { system.lifecycleState }
    var reports: [TerminationReport] { system.terminationReports }
}

// MARK: Simulator

@MainActor
final class SimulatorDriver: ConformanceDriver {
    let simulator = Simulator()
    private var delegate: ConformanceDelegate?
    private var launchCode: (@MainActor (UIApplication) -> Void)?

    init(sceneManifest: SceneManifest?) {
        let manifest = ConformanceApp.manifest(sceneManifest: sceneManifest)
        _ = simulator.install(ConformanceApp.id, manifest: manifest) { [unowned self] process in
            process.delegate = delegate
            launchCode?(process.application)
        }
    }

    func launch(_ delegate: ConformanceDelegate, launchCode: @escaping @MainActor (UIApplication) -> Void) async {
        self.delegate = delegate
        self.launchCode = launchCode
        simulator.user.open(ConformanceApp.id)
        await settle()
    }

    var application: UIApplication { simulator.application(of: ConformanceApp.id)! }
    func home() async {
        simulator.user.goHome()
        await settle()
    }

    func open() async {
        simulator.user.open(ConformanceApp.id)
        await settle()
    }

    func advance(by duration: Duration) async { await simulator.run(for: duration) }

    func push(_ payload: String) async {
        simulator.push(ConformanceApp.id, payload: payload)
        await settle()
    }

    /// Runs what is due now (the launch code and callbacks of an open come at the next turn),
    /// then the main queue.
    func settle() async {
        simulator.runPending()
        await simulator.runMainQueue()
    }
    var systemState: AppLifecycleState { simulator.state(of: ConformanceApp.id) }
    var reports: [TerminationReport] { simulator.reports }
}

// MARK: Daemon

@MainActor
final class DaemonDriver: ConformanceDriver {
    let fixture: EngineFixture
    private var link: SocketPairLink?
    private var connection: DaemonConnection?
    private var app: UIApplication?
    private var delegate: ConformanceDelegate?
    private let sceneManifest: SceneManifest?

    init(sceneManifest: SceneManifest?) throws {
        fixture = try EngineFixture(modes: [ConformanceApp.id: [.audio, .remoteNotification]])
        self.sceneManifest = sceneManifest
    }

    deinit {
        link?.close(reason: "the test ended")
    }

    func launch(_ delegate: ConformanceDelegate, launchCode: @escaping @MainActor (UIApplication) -> Void) async {
        self.delegate = delegate
        _ = fixture.engine.answer(.open(ConformanceApp.id))
        let link = try! SocketPairLink(
            engine: fixture.engine,
            app: ConformanceApp.id,
            incarnation: Incarnation(rawValue: 1)
        )
        self.link = link
        let connection = await link.appConnection(ConformanceApp.id, sceneManifest: sceneManifest)
        self.connection = connection
        let application = UIApplication(connection: connection)
        application.delegate = delegate
        app = application
        launchCode(application)
        // What `main()` does: the launch callbacks from the welcome's state, then the launch's end.
        ApplicationMain.deliverLaunch(application)
        connection.finishLaunching()
        await settle()
    }

    var application: UIApplication { app! }

    func home() async {
        _ = fixture.engine.answer(.home)
        await settle()
    }

    func open() async {
        _ = fixture.engine.answer(.open(ConformanceApp.id))
        await settle()
    }

    func push(_ payload: String) async {
        _ = fixture.engine.answer(.push(ConformanceApp.id, payload: payload))
        await settle()
    }

    /// Moves the engine's clock from one armed wake-up to the next up to the end, ticking at each
    /// and letting the app answer before the next (the daemon's timers fire on its clock, and
    /// the app runs its handlers in between, as in real time).
    func advance(by duration: Duration) async {
        let end = fixture.clock.now + duration
        await settle()
        while let armed = fixture.wakeups.armed.withLock({ $0 }), armed <= end {
            let now = fixture.clock.now
            if armed > now { fixture.clock.advance(by: armed - now) }
            fixture.engine.tick()
            await settle()
            if fixture.wakeups.armed.withLock({ $0 }) == armed { break }  // nothing further due at it
        }
        let now = fixture.clock.now
        if end > now { fixture.clock.advance(by: end - now) }
        fixture.engine.tick()
        await settle()
    }

    /// Waits until both sides are quiet: the app's main queue has run what was queued there, and
    /// a round trip after it (answered in order behind every push the daemon sent before it)
    /// has come back; until two rounds see the same state. Event-driven: no sleep.
    func settle() async {
        guard let connection else { return }
        var last = ""
        for _ in 0..<100 {
            await mainQueueTurn()
            _ = await onDedicatedThread { connection.isConnected ? connection.pendingTaskRequests().count : 0 }
            await mainQueueTurn()
            let now =
                "\(delegate?.log.calls.count ?? 0) \(fixture.engine.appState(ConformanceApp.id)) "
                + "\(connection.terminationReports.count)"
            if now == last { return }
            last = now
        }
    }

    private func mainQueueTurn() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { done.resume() }
        }
    }

    var systemState: AppLifecycleState { fixture.engine.appState(ConformanceApp.id) }
    var reports: [TerminationReport] { connection?.terminationReports ?? [] }
}
