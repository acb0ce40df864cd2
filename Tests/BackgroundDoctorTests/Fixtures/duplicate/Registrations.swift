import BackgroundTasks
import UIKit

let sharedRefreshIdentifier = "com.example.shop.refresh"

enum AnalyticsSDK {
    static func configure() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: sharedRefreshIdentifier, using: nil) { task in
            task.setTaskCompleted(success: true)
        }
    }
}

@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        AnalyticsSDK.configure()
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.shop.refresh", using: nil) { task in
            task.setTaskCompleted(success: true)
        }
        return true
    }
}
