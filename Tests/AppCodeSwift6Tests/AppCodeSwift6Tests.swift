// App code written the way iOS apps write it, compiled in the Swift 6 language mode.
//
// Apple's Objective-C APIs are imported `@preconcurrency`: a closure that captures a
// non-`Sendable` value where the API wants a `@Sendable` one is a warning in Swift 6 mode, not
// an error. This target compiles only because ours are declared `@preconcurrency` too; the
// warnings it prints are the ones Xcode prints for the same code against the iOS SDK.

import BackgroundCore
import BackgroundExecution
import Foundation
import Synchronization
import Testing

/// A model object with mutable state and no concurrency annotations: the common case.
final class FeedStore {
    var pending: [String] = []
    var saved = 0
    var knownRequests = 0

    func save() { saved += 1 }
}

/// Passes closures that capture `self` (not `Sendable`) to the three APIs.
final class FeedSync {
    let store = FeedStore()
    let scheduler: BGTaskScheduler
    let application: UIApplication

    init(application: UIApplication) {
        self.application = application
        self.scheduler = BGTaskScheduler(connection: application.connection)
    }

    /// `performExpiringActivity(withReason:using:)` with a block that captures `self`.
    func saveInBackground(done: @escaping @Sendable () -> Void) {
        ProcessInfo.processInfo.performExpiringActivity(withReason: "Save feed", application: application) {
            expired in
            if !expired { self.store.save() }
            done()
        }
    }

    /// `getPendingTaskRequests(completionHandler:)` with a handler that captures `self`.
    func countPendingRequests(done: @escaping @Sendable () -> Void) {
        scheduler.getPendingTaskRequests { requests in
            self.store.knownRequests = requests.count
            done()
        }
    }

    /// `beginBackgroundTask(withName:expirationHandler:)` with a handler that captures `self`,
    /// from the main actor (where iOS code calls `UIApplication`).
    @MainActor
    func beginUpload() -> UIBackgroundTaskIdentifier {
        application.beginBackgroundTask(withName: "Upload") {
            self.store.pending.removeAll()
        }
    }
}

@Suite("iOS app code compiles and runs in the Swift 6 language mode")
struct AppCodeSwift6Tests {
    static func application() -> UIApplication {
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.feed",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false
            )
        )
        return UIApplication(connection: system)
    }

    @MainActor
    @Test("Closures capturing non-Sendable state run: expiring activity, pending requests, background task")
    func closuresRun() throws {
        let sync = FeedSync(application: Self.application())
        let finished = DispatchSemaphore(value: 0)
        sync.saveInBackground { finished.signal() }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        sync.countPendingRequests { finished.signal() }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        let task = sync.beginUpload()
        #expect(task != .invalid)
        sync.application.endBackgroundTask(task)
        #expect(sync.store.saved == 1)
        #expect(sync.store.knownRequests == 0)
    }
}
