import BackgroundTasks
import UIKit

enum BackgroundTaskID: String {
    case refresh = "com.example.news.refresh"
    case sync = "com.example.news.sync"
}

@main
final class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: BackgroundTaskID.refresh.rawValue, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: BackgroundTaskID.sync.rawValue, using: .main) { task in
            task.setTaskCompleted(success: true)
        }
        return true
    }

    func schedule() {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: BackgroundTaskID.refresh.rawValue))
        try? BGTaskScheduler.shared.submit(BGProcessingTaskRequest(identifier: BackgroundTaskID.sync.rawValue))
    }
}

final class Exporter {
    let identifier = "com.example.news.export"

    func export() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) {
            $0.setTaskCompleted(success: true)
        }
        let request = BGContinuedProcessingTaskRequest(identifier: identifier, title: "Export", subtitle: "")
        try? BGTaskScheduler.shared.submit(request)
    }
}
