import BackgroundCore
import Foundation
import Synchronization

/// The app's view of the background execution system, with UIKit's names and signatures.
///
/// iOS code that uses `UIApplication` for background tasks compiles with
/// `import BackgroundExecution` in place of `import UIKit`, and behaves as on a device:
///
/// ```swift
/// let app: UIApplication = .shared
/// var task = UIBackgroundTaskIdentifier.invalid
/// task = app.beginBackgroundTask(withName: "Save") {
///     app.endBackgroundTask(task)          // expiring: clean up and end
/// }
/// save { app.endBackgroundTask(task) }
/// ```
///
/// Linux behaviour: `shared` is connected to ``EmbeddedSystem/default`` (the system running
/// inside this process on the real clock) unless ``bootstrap(_:)`` connected it elsewhere first,
/// or the environment asks for `backgroundd` (`BACKGROUND_SYSTEM=daemon`, or an app the daemon
/// started): then to a ``DaemonConnection``.
/// For tests, create an application over an ``EmbeddedSystem`` on a ``ManualClock``. Unlike
/// UIKit, every member is `nonisolated`, so it can be stored, injected and called from any
/// thread; expiration handlers and delegate calls still run on the main actor.
public final class UIApplication: Sendable {
    /// The system this application talks to.
    public let connection: any SystemConnection

    /// The app's `BGTaskScheduler`: what `BGTaskScheduler.shared` answers while ``shared`` is
    /// this application.
    public let taskScheduler: BGTaskScheduler

    /// The delegate that receives lifecycle calls, on the main actor.
    @MainActor public weak var delegate: (any UIApplicationDelegate)?

    /// Whether `application(_:didFinishLaunchingWithOptions:)` has been delivered in this process.
    @MainActor var hasFinishedLaunching = false

    /// The state the app's callbacks last told it of (``UIApplication/State``'s three, or nil
    /// before the first): a change into it again is not delivered twice
    /// (``deliverTransition(from:to:)``).
    @MainActor var deliveredState: State?

    /// The app's scenes and sessions (``connectedScenes``, ``openSessions``), when it is
    /// scene-based.
    @MainActor var sceneTable = SceneTable()

    /// Creates an application object connected to `connection`.
    ///
    /// - Parameter connection: The system that governs the app: ``EmbeddedSystem``, the daemon
    ///   connection or the simulator.
    public init(connection: any SystemConnection) {
        self.connection = connection
        self.taskScheduler = BGTaskScheduler(connection: connection)
        connection.attach(self)
    }

    /// What ``bootstrap(_:)`` connected, or the default once first used; `bootstrapped` tells
    /// an explicit connection from the default.
    private static let sharedStorage = Mutex<(application: UIApplication?, bootstrapped: Bool)>((nil, false))

    /// The app's application object: UIKit's singleton.
    ///
    /// In the app's own process, the application ``bootstrap(_:)`` connected, or one connected
    /// on first use to ``EmbeddedSystem/default``, or to `backgroundd` when the environment says
    /// so (``DaemonConnection``). In the simulator, where many apps share one
    /// process, the application of the simulated app whose code is running: its main-actor
    /// code, the `Task`s it starts and the actors they call, and the main-queue blocks it
    /// queues during its turn (see ``running``).
    public static var shared: UIApplication {
        if let running = attributedApplication { return running }
        let stored = sharedStorage.withLock { $0 }
        if stored.bootstrapped, let application = stored.application { return application }
        if let contextless = contextlessApplication() { return contextless }
        if let application = stored.application { return application }
        return sharedStorage.withLock { stored in
            if let application = stored.application { return application }
            let application = UIApplication(connection: SystemSelection.processDefault())
            stored.application = application
            return application
        }
    }

    /// The application object if the app made one (``shared`` or ``bootstrap(_:)``), without
    /// making one: for code that must not start the embedded system as a side effect.
    package static var existing: UIApplication? {
        attributedApplication ?? sharedStorage.withLock { $0.application }
    }

    /// Connects ``shared`` to another system, for example an ``EmbeddedSystem`` with a service's
    /// shutdown policy, or a test's system on a ``ManualClock``.
    ///
    /// Call it before the app first touches `shared`; calling it again replaces the connection
    /// (tests that do so must not run in parallel with each other). The simulator's apps are not
    /// affected: their code gets its own application whatever was bootstrapped.
    ///
    /// - Returns: The new shared application.
    @discardableResult
    public static func bootstrap(_ connection: any SystemConnection) -> UIApplication {
        let application = UIApplication(connection: connection)
        sharedStorage.withLock { $0 = (application, true) }
        return application
    }

    /// The application ``bootstrap(_:)`` connected, if it ran.
    package static var bootstrapped: UIApplication? {
        sharedStorage.withLock { $0.bootstrapped ? $0.application : nil }
    }

    /// The app's state: Apple's three values (S7).
    public enum State: Int, Sendable, Hashable, CustomStringConvertible {
        /// In the foreground, receiving events.
        case active = 0
        /// In the foreground, not receiving events.
        case inactive = 1
        /// In the background.
        case background = 2

        public var description: String {
            switch self {
            case .active: return "active"
            case .inactive: return "inactive"
            case .background: return "background"
            }
        }
    }

    /// The app's state. Suspended and not-running apps run no code, so they read `background`.
    public var applicationState: State {
        State(connection.lifecycleState)
    }

    /// Whether the app may refresh content in the background (S6).
    public var backgroundRefreshStatus: UIBackgroundRefreshStatus {
        UIBackgroundRefreshStatus(connection.backgroundRefreshStatus)
    }
}

/// Whether background refresh is available to the app; Apple's raw values (S6).
public enum UIBackgroundRefreshStatus: Int, Sendable, Hashable, CustomStringConvertible {
    /// Unavailable, and the user cannot enable it (for example parental controls).
    case restricted = 0
    /// The user turned it off for this app or the system, or Low Power Mode is on.
    case denied = 1
    /// Available.
    case available = 2

    package init(_ status: BackgroundRefreshStatus) {
        switch status {
        case .restricted: self = .restricted
        case .denied: self = .denied
        case .available: self = .available
        }
    }

    public var description: String {
        switch self {
        case .restricted: return "restricted"
        case .denied: return "denied"
        case .available: return "available"
        }
    }
}
