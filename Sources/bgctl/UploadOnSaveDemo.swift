import BackgroundExecution
import Logging

/// The seed's upload-on-save example (`UploadManager` / `BackgroundTaskExample`), on a virtual
/// clock: app code written against the Apple API, run twice.
@MainActor
enum UploadOnSaveDemo {
    /// Runs both stories and returns their timelines and the leak's termination report.
    static func run() -> String {
        let timeline = Timeline()
        timeline.raw(
            "bgctl demo: upload on save, in virtual time (policy iOS: 30 s budget, handlers 5 s before the end)"
        )
        timeline.raw("")
        timeline.raw(
            "1. UploadManager done right: the upload outlasts the budget, the expiration handler ends the task"
        )
        runStory(timeline, leaks: false)
        timeline.raw("")
        timeline.raw("2. The same app with a leaked assertion: the failure path forgets endBackgroundTask")
        let report = runStory(timeline, leaks: true)
        if let report {
            timeline.raw("")
            timeline.raw(report.renderText(process: .init(processName: "UploadDemo")))
        }
        return timeline.text
    }

    /// One story: launch, tap Save, press Home, let virtual time run for a minute.
    @discardableResult
    private static func runStory(_ timeline: Timeline, leaks: Bool) -> TerminationReport? {
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.upload-demo",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false,
                logger: Logger(label: "demo", factory: { _ in SwiftLogNoOpLogHandler() }),
                effectObserver: { instant, effect in timeline.observe(instant, effect) }
            )
        )
        let application = UIApplication(connection: system)
        let uploads = UploadManager(application: application, clock: clock, timeline: timeline, leaks: leaks)
        clock.runPending()
        timeline.note(clock.now, "app: launched, state \(application.applicationState)")

        clock.advance(by: .seconds(1))
        timeline.note(clock.now, "user: taps Save (a 40 s upload starts)")
        uploads.uploadPendingData(duration: .seconds(40))

        clock.advance(by: .seconds(2))
        timeline.note(clock.now, "user: presses Home")
        system.moveToBackground()
        clock.runPending()
        timeline.note(
            clock.now,
            "app: in the background, backgroundTimeRemaining = \(format(application.backgroundTimeRemaining)) s"
        )

        clock.advance(by: .seconds(60))
        timeline.note(clock.now, "end: app is \(system.lifecycleState)")
        return system.terminationReports.last
    }

    private static func format(_ seconds: Double) -> String {
        Duration.seconds(fromInterval: seconds).formattedSeconds
    }
}

/// The seed's `UploadManager`, with its work on the virtual clock instead of `sleep`.
@MainActor
final class UploadManager {
    private let application: UIApplication
    private let clock: ManualClock
    private let timeline: Timeline
    private let leaks: Bool
    private var backgroundTask: UIBackgroundTaskIdentifier = .invalid
    private var upload: ManualClock.Token?

    init(application: UIApplication, clock: ManualClock, timeline: Timeline, leaks: Bool) {
        self.application = application
        self.clock = clock
        self.timeline = timeline
        self.leaks = leaks
    }

    func uploadPendingData(duration: Duration) {
        backgroundTask = application.beginBackgroundTask(withName: "UploadPendingData") { [weak self] in
            self?.expirationHandler()
        }
        timeline.note(
            clock.now,
            "app: beginBackgroundTask(withName: \"UploadPendingData\") → \(backgroundTask.rawValue)"
        )
        guard backgroundTask != .invalid else { return }
        if leaks {
            upload = clock.schedule(after: .seconds(8)) { [weak self] in self?.uploadFailed() }
        } else {
            upload = clock.schedule(after: duration) { [weak self] in self?.uploadFinished() }
        }
    }

    private func expirationHandler() {
        if leaks {
            timeline.note(clock.now, "app: expiration handler logs \"expired\" and returns (bug: no endBackgroundTask)")
            return
        }
        timeline.note(clock.now, "app: expiration handler cancels the upload and ends the task")
        if let upload { clock.cancel(upload) }
        cleanupBackgroundTask()
    }

    private func uploadFinished() {
        timeline.note(clock.now, "app: upload finished")
        cleanupBackgroundTask()
    }

    private func uploadFailed() {
        // The classic leak: an early return on the error path skips endBackgroundTask.
        timeline.note(clock.now, "app: upload failed, returns early (bug: no endBackgroundTask)")
    }

    private func cleanupBackgroundTask() {
        guard backgroundTask != .invalid else { return }
        timeline.note(clock.now, "app: endBackgroundTask(\(backgroundTask.rawValue))")
        application.endBackgroundTask(backgroundTask)
        backgroundTask = .invalid
    }
}
