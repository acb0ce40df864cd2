import UIKit

final class UploadManager {
    private var backgroundTask: UIBackgroundTaskIdentifier = .invalid

    func upload(_ data: Data, to url: URL) {
        backgroundTask = UIApplication.shared.beginBackgroundTask(withName: "Upload") { [weak self] in
            self?.endBackgroundTask()
        }
        URLSession.shared.uploadTask(with: URLRequest(url: url), from: data) { [weak self] _, _, _ in
            self?.endBackgroundTask()
        }.resume()
    }

    private func endBackgroundTask() {
        UIApplication.shared.endBackgroundTask(backgroundTask)
        backgroundTask = .invalid
    }

    func saveDraft(_ text: String) {
        let identifier = UIApplication.shared.beginBackgroundTask(withName: "Save draft")
        DraftStore.shared.write(text)
        UIApplication.shared.endBackgroundTask(identifier)
    }
}
