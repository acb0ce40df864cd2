import BackgroundCore
import BackgroundExecution
import Dispatch
import Foundation
import Synchronization

/// The simulators alive in this process: where `UIApplication.shared` goes from code no app can
/// be told for.
enum LiveSimulators {
    private static let inboxes = Mutex<[ObjectIdentifier: CallInbox]>([:])

    /// The application `UIApplication.shared` answers for contextless code while simulators live.
    private static let contextless = UIApplication(connection: ContextlessConnection())

    private static let installed: Void = UIApplication.installContextless {
        LiveSimulators.isEmpty ? nil : LiveSimulators.contextless
    }

    static func add(_ inbox: CallInbox) {
        _ = installed
        inboxes.withLock { $0[ObjectIdentifier(inbox)] = inbox }
    }

    static func remove(_ inbox: CallInbox) {
        inboxes.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(inbox)) }
    }

    static var isEmpty: Bool { inboxes.withLock { $0.isEmpty } }

    /// Hands a fault no app can be named for to the live simulators of the test running on the
    /// current task, if it has any; else (no test can be told) to every live simulator.
    static func raise(_ fault: BackgroundFault) {
        let all = inboxes.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
        let current = UnhandledFaultRecorder.currentTest
        let owned = current.map { test in all.filter { $0.owner == test } } ?? []
        for inbox in owned.isEmpty ? all : owned {
            if MainActorThread.isCurrent {
                MainActor.assumeIsolated { inbox.simulator?.raise(fault) }
            } else {
                inbox.post { $0.raise(fault) }
            }
        }
    }
}

/// What `UIApplication.shared` (and `BGTaskScheduler.shared`) reach from code the simulator
/// cannot attribute to an app (a detached task, a thread or queue of the app's own) while
/// nothing was bootstrapped: `endBackgroundTask(_:)` reaches the app that began the task, by
/// its identifier; every other call does nothing and raises a fault naming it, on every live
/// simulator. It never reaches another system.
final class ContextlessConnection: SystemConnection {
    let app = AppID("(an app the simulator cannot tell)")

    private func refuse(_ call: String) {
        LiveSimulators.raise(
            BackgroundFault(
                api: call,
                message:
                    "called from code the simulator cannot attribute to an app (a detached task, or a thread or queue "
                    + "not started by the app's main-actor code); call it from the app's main actor, its Tasks or "
                    + "its main-queue blocks, or keep its UIApplication"
            )
        )
    }

    func beginAssertion(
        named name: String,
        at site: CallSite,
        expirationHandler: (@MainActor @Sendable () -> Void)?
    ) -> AssertionID? {
        refuse("beginBackgroundTask(withName:expirationHandler:)")
        return nil
    }

    func endAssertion(_ id: AssertionID) {
        if let owner = AssertionRoutes.connection(for: id.rawValue) {
            owner.endTagged(id.rawValue)
        } else {
            refuse("endBackgroundTask(_:)")
        }
    }

    var backgroundTimeRemaining: Duration? {
        refuse("backgroundTimeRemaining")
        return nil
    }

    var lifecycleState: AppLifecycleState {
        refuse("applicationState")
        return .notRunning
    }

    var backgroundRefreshStatus: BackgroundRefreshStatus {
        refuse("backgroundRefreshStatus")
        return .denied
    }

    var isLowPowerModeEnabled: Bool {
        refuse("isLowPowerModeEnabled")
        return false
    }

    func attach(_ application: UIApplication) {}

    func registerTaskHandler(
        identifier: String,
        queue: DispatchQueue?,
        launchHandler: @escaping (BGTask) -> Void
    )
        -> Bool
    {
        refuse("register(forTaskWithIdentifier:using:launchHandler:)")
        return false
    }

    func submitTaskRequest(_ request: TaskRequest) throws(BGTaskScheduler.Error) {
        refuse("submit(_:)")
        throw BGTaskScheduler.Error(.unavailable)
    }

    func cancelTaskRequest(identifier: String) { refuse("cancel(taskRequestWithIdentifier:)") }

    func cancelAllTaskRequests() { refuse("cancelAllTaskRequests()") }

    func pendingTaskRequests() -> [TaskRequest] {
        refuse("pendingTaskRequests()")
        return []
    }

    func eligibility(forTaskWithIdentifier identifier: String) -> Eligibility? {
        refuse("eligibility(forTaskWithIdentifier:)")
        return nil
    }

    func explanation(forTaskWithIdentifier identifier: String) -> RequestExplanation? {
        refuse("explanation(forTaskWithIdentifier:)")
        return nil
    }

    func simulateLaunch(forTaskWithIdentifier identifier: String) {
        refuse("_simulateLaunchForTaskWithIdentifier(_:)")
    }

    func simulateExpiration(forTaskWithIdentifier identifier: String) {
        refuse("_simulateExpirationForTaskWithIdentifier(_:)")
    }

    func completeTask(_ run: TaskRunID, success: Bool) { refuse("setTaskCompleted(success:)") }

    func reportProgress(_ run: TaskRunID, fraction: Double) { refuse("progress") }

    func setMinimumBackgroundFetchInterval(_ interval: Duration?) {
        refuse("setMinimumBackgroundFetchInterval(_:)")
    }

    var supportsBackgroundGPU: Bool { false }

    func instant(for date: Date) -> Instant { .zero }

    func date(for instant: Instant) -> Date { Date() }

    func log(_ level: LogRecord.Level, _ message: String) {}

    func raise(_ fault: BackgroundFault) {
        LiveSimulators.raise(fault)
    }
}
