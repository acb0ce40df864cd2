import BackgroundTasks
import UIKit

@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    let store = NoteStore()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        registerBackgroundTasks()
        return true
    }

    private func registerBackgroundTasks() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: TaskIdentifier.refresh, using: nil) { task in
            self.handleAppRefresh(task: task as! BGAppRefreshTask)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: TaskIdentifier.cleanup, using: nil) { task in
            self.handleDatabaseCleaning(task: task as! BGProcessingTask)
        }
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        scheduleAppRefresh()
        scheduleDatabaseCleaningIfNeeded()
    }

    func scheduleAppRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: TaskIdentifier.refresh)
        request.earliestBeginDate = Date(timeIntervalSinceNow: 15 * 60)
        do {
            try BGTaskScheduler.shared.submit(request)
        } catch {
            print("Could not schedule app refresh: \(error)")
        }
    }

    func scheduleDatabaseCleaningIfNeeded() {
        let request = BGProcessingTaskRequest(identifier: TaskIdentifier.cleanup)
        request.requiresNetworkConnectivity = false
        request.requiresExternalPower = true
        try? BGTaskScheduler.shared.submit(request)
    }

    func handleAppRefresh(task: BGAppRefreshTask) {
        scheduleAppRefresh()
        let operation = store.refreshOperation()
        task.expirationHandler = { operation.cancel() }
        operation.completionBlock = { task.setTaskCompleted(success: !operation.isCancelled) }
        store.queue.addOperation(operation)
    }

    func handleDatabaseCleaning(task: BGProcessingTask) {
        let operation = store.cleanupOperation()
        task.expirationHandler = { operation.cancel() }
        operation.completionBlock = { task.setTaskCompleted(success: !operation.isCancelled) }
        store.queue.addOperation(operation)
    }

    func signOut() {
        BGTaskScheduler.shared.cancel(taskRequestWithIdentifier: TaskIdentifier.refresh)
        store.deleteAll()
    }
}
