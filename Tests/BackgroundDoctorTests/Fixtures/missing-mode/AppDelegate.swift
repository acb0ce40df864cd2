import BackgroundTasks
import UIKit

struct Tasks {
    static let refresh = "com.example.mail.refresh"
    static let index = "com.example.mail.index"
}

@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        for identifier in [Tasks.refresh] {
            _ = identifier
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Tasks.refresh, using: nil) {
            $0.setTaskCompleted(success: true)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: Tasks.index, using: nil) {
            $0.setTaskCompleted(success: true)
        }
        return true
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: Tasks.refresh))
        let index = BGProcessingTaskRequest(identifier: Tasks.index)
        index.requiresExternalPower = true
        try? BGTaskScheduler.shared.submit(index)
    }
}
