import BackgroundTasks
import UIKit

enum ChatTask {
    static let refresh = "com.example.chat.refresh"
    static let sync = "com.example.chat.sync"
    static let prune = "com.example.chat.prune"
    static let backup = "com.example.chat.backup"
    static let index = "com.example.chat.index"
}

@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: ChatTask.refresh, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
        Task {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: ChatTask.sync, using: nil) { task in
                task.setTaskCompleted(success: true)
            }
        }
        return true
    }

    func sceneDidBecomeActive(_ scene: UIScene) {
        registerBackupHandler()
    }

    private func registerBackupHandler() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: ChatTask.backup, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
    }
}

actor ChatDatabase {
    func open() async throws {
        try await migrate()
        BGTaskScheduler.shared.register(forTaskWithIdentifier: ChatTask.prune, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
    }

    func migrate() async throws {}
}
