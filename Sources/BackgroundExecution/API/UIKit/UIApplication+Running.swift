import Foundation
import Synchronization

/// Whether the caller runs on the main queue, where the main actor's jobs run: Foundation's
/// `Thread.isMainThread` cannot tell, since under `dispatchMain()` (a test runner's) the main
/// queue is drained by worker threads.
package enum MainActorThread {
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether the caller runs on the main queue (a main-actor job or a main-queue block).
    package static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}

/// Which application `UIApplication.shared` answers when many apps share one process (the
/// simulator): the app whose code is running.
///
/// On a device every app is its own process, so `shared` always means "this app". The simulator
/// runs many apps' code in one process, and tells `shared` whose code runs in three ways:
///
/// - around each piece of an app's code it binds ``running`` (a task-local value), which the
///   `Task`s that code starts inherit, and with them the actors they call;
/// - it marks each app's turn in the main queue (``markMainQueueTurn(_:)``), so a block the
///   app's code queues on `DispatchQueue.main` during its turn runs as that app;
/// - where neither tells (a detached task, a thread or queue of the app's own), the simulator
///   installs a contextless application (``contextlessApplication``) that routes
///   `endBackgroundTask(_:)` by its identifier and stops every other call with a fault naming it.
extension UIApplication {
    /// The application whose code is running in this task, bound by the simulator around each
    /// app's code and inherited by the `Task`s it starts; `nil` in an app's own process.
    @TaskLocal package static var running: UIApplication?

    /// The application whose main-queue blocks run now, between two of the simulator's marks;
    /// held weakly, so a mark never keeps an ended app's objects alive.
    private static let mainQueueTurn = Mutex(WeakApplication())

    private struct WeakApplication {
        weak var application: UIApplication?
    }

    /// Where ``shared`` goes when no app's code is known to be running and nothing was
    /// bootstrapped: the simulator installs it while simulated apps exist.
    private static let contextless = Mutex<(@Sendable () -> UIApplication?)?>(nil)

    /// Queues a mark on the main queue: the blocks queued after it, up to the next mark, run as
    /// `application` (`nil`: as no app). Called on the main thread as an app's turn begins
    /// (with its application) and ends (with `nil`).
    package static func markMainQueueTurn(_ application: UIApplication?) {
        DispatchQueue.main.async { [weak application] in
            mainQueueTurn.withLock { $0 = WeakApplication(application: application) }
        }
    }

    /// Installs where contextless calls go (the simulator's router); once per process.
    package static func installContextless(_ resolve: @escaping @Sendable () -> UIApplication?) {
        contextless.withLock { $0 = resolve }
    }

    /// The application whose code runs here, if the simulator told: the task-local binding, or
    /// the main-queue turn for a plain main-queue block (one that runs in no Swift task).
    static var attributedApplication: UIApplication? {
        if let running { return running }
        guard let turn = mainQueueTurn.withLock({ $0.application }) else { return nil }
        guard MainActorThread.isCurrent, withUnsafeCurrentTask(body: { $0 == nil }) else { return nil }
        return turn
    }

    /// The simulator's contextless application, while simulated apps exist.
    static func contextlessApplication() -> UIApplication? {
        guard let resolve = contextless.withLock({ $0 }) else { return nil }
        return resolve()
    }
}
