import BackgroundTasks
import Foundation

final class BackgroundScheduler {
    static let shared = BackgroundScheduler()
    private let bundleID = Bundle.main.bundleIdentifier!
    private lazy var backupIdentifier = "\(bundleID).backup"

    func registerHandlers() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "\(bundleID).refresh", using: nil) { task in
            task.setTaskCompleted(success: true)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.photos.export.*", using: nil) { task in
            task.setTaskCompleted(success: true)
        }
    }

    func scheduleRefresh() {
        try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: "\(bundleID).refresh"))
    }

    func scheduleBackup() throws {
        let request = BGProcessingTaskRequest(identifier: "\(bundleID).backup")
        request.requiresExternalPower = true
        try BGTaskScheduler.shared.submit(request)
    }

    func exportAlbum() {
        let request = BGContinuedProcessingTaskRequest(
            identifier: "com.example.photos.export.album",
            title: "Exporting album",
            subtitle: ""
        )
        try? BGTaskScheduler.shared.submit(request)
    }
}

@main
final class AppDelegate: NSObject, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        BackgroundScheduler.shared.registerHandlers()
        return true
    }
}
