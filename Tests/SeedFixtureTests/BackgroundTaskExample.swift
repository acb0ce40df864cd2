// swift-format-ignore-file
// Seed 000 ("Mastering iOS Background Execution"), the BackgroundTaskExample sample, copied
// verbatim except: `import UIKit` became `import BackgroundExecution`, and the class header's
// opening brace, lost when the page was scraped (`class BackgroundTaskExample:`), is restored.
import BackgroundExecution

class BackgroundTaskExample {
    private var backgroundTask: UIBackgroundTaskIdentifier = .invalid

    func performLongRunningOperation() {
        print("Starting long-running operation...")

        // Register a background task
        backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "MyDataUploadTask") {
            // This block is called if the system needs to reclaim time
            self.endBackgroundTask()
            print("Background task expired before completion.")
        }

        // Simulate a network request or data processing
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { // Simulate 20 seconds of work
            // Ensure we are not trying to do UI updates on background thread
            DispatchQueue.main.async {
                print("Long-running operation completed!")
                self.endBackgroundTask()
            }
        }
    }

    private func endBackgroundTask() {
        if backgroundTask != .invalid {
            UIApplication.shared.endBackgroundTask(backgroundTask)
            backgroundTask = .invalid
            print("Background task ended.")
        }
    }
}
