// swift-format-ignore-file
// Seed 001 ("Proper use of beginBackgroundTaskWithExpirationHandler"), copied verbatim except the
// import: `import UIKit` became `import BackgroundExecution`.
import BackgroundExecution

final class UploadManager {
    private var backgroundTask: UIBackgroundTaskIdentifier = .invalid

    func uploadPendingData() {
        backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "UploadPendingData") {
            self.cleanupBackgroundTask()
        }

        guard backgroundTask != .invalid else {
            return
        }

        performUpload { [weak self] in
            self?.cleanupBackgroundTask()
        }
    }

    private func performUpload(completion: @escaping () -> Void) {
        DispatchQueue.global().async {
            // Simulate work
            sleep(2)
            completion()
        }
    }

    private func cleanupBackgroundTask() {
        guard backgroundTask != .invalid else { return }
        UIApplication.shared.endBackgroundTask(backgroundTask)
        backgroundTask = .invalid
    }
}
