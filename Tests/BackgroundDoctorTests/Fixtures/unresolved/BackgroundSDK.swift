import BackgroundTasks
import Foundation

public final class BackgroundSDK {
    public static func start(taskIdentifier: String) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: taskIdentifier, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
    }

    public static func schedule() {
        let identifier = UserDefaults.standard.string(forKey: "bg.identifier") ?? "com.example.sdk.refresh"
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: identifier))
    }
}
