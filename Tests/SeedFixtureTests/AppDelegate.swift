// swift-format-ignore-file
// Seed 000 ("Mastering iOS Background Execution"), the background fetch AppDelegate, copied
// verbatim except the import (`import UIKit` became `import BackgroundExecution`) and the
// class's name (AppDelegate → FetchAppDelegate, so it cannot clash with other fixtures).
import BackgroundExecution

class FetchAppDelegate: UIResponder, UIApplicationDelegate {

    var window: UIWindow?

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        // Override point for customization after application launch.
        
        // Set the minimum background fetch interval
        // Use .minimum to let the system determine the best interval
        UIApplication.shared.setMinimumBackgroundFetchInterval(UIApplication.backgroundFetchIntervalMinimum)
        return true
    }

    func application(_ application: UIApplication, performFetchWithCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        print("Background Fetch initiated.")

        // Simulate a network request
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { // Simulate 5 seconds of fetching
            let newDataAvailable = Bool.random() // Simulate whether new data was found

            if newDataAvailable {
                print("New data fetched in background.")
                // Process and save your new data here
                completionHandler(.newData)
            } else {
                print("No new data fetched in background.")
                completionHandler(.noData)
            }
        }
    }

    // ... other AppDelegate methods
}
