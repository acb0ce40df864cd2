import UIKit

final class SyncService {
    private var syncTask: UIBackgroundTaskIdentifier = .invalid
    private var uploadTask = UIBackgroundTaskIdentifier.invalid

    func sync() {
        syncTask = UIApplication.shared.beginBackgroundTask(withName: "Sync") {
            print("sync expired")
        }
        performSync { [weak self] in
            guard let self else { return }
            UIApplication.shared.endBackgroundTask(self.uploadTask)
        }
    }

    func flushLogs() {
        _ = UIApplication.shared.beginBackgroundTask(withName: "Flush logs", expirationHandler: nil)
        Logger.flush()
    }

    func performSync(_ done: @escaping () -> Void) { done() }
}

final class Cache {
    private var task: UIBackgroundTaskIdentifier = .invalid

    func persist() {
        task = UIApplication.shared.beginBackgroundTask { [weak self] in
            guard let self else { return }
            UIApplication.shared.endBackgroundTask(self.task)
            self.task = .invalid
        }
        write()
        UIApplication.shared.endBackgroundTask(task)
        task = .invalid
    }

    func write() {}
}
