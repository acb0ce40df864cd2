import BackgroundExecution
import Foundation
import Testing

/// A delegate that records its calls and can begin work when entering the background.
@MainActor
final class RecordingDelegate: UIResponder, UIApplicationDelegate {
    var calls: [String] = []
    var beginsWorkOnBackground = false
    var task = UIBackgroundTaskIdentifier.invalid

    func applicationDidBecomeActive(_ application: UIApplication) { calls.append("didBecomeActive") }
    func applicationWillResignActive(_ application: UIApplication) { calls.append("willResignActive") }
    func applicationWillEnterForeground(_ application: UIApplication) { calls.append("willEnterForeground") }
    func applicationDidEnterBackground(_ application: UIApplication) {
        calls.append("didEnterBackground")
        if beginsWorkOnBackground { task = application.beginBackgroundTask(withName: "FromDelegate") }
    }
}

@Suite("Lifecycle callbacks and notifications")
@MainActor
struct LifecycleCallbackTests {
    @Test("The delegate hears resign-active, enter-background, enter-foreground and become-active in order")
    func delegateOrder() {
        let harness = ManualHarness()
        let delegate = RecordingDelegate()
        harness.application.delegate = delegate
        harness.moveToBackground()
        harness.system.moveToForeground()
        harness.clock.runPending()
        #expect(
            delegate.calls == [
                "willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive",
            ]
        )
    }

    @Test("A task begun in applicationDidEnterBackground keeps the app running; it is suspended when it ends")
    func workBegunInDelegate() {
        let harness = ManualHarness()
        let delegate = RecordingDelegate()
        delegate.beginsWorkOnBackground = true
        harness.application.delegate = delegate
        harness.moveToBackground()
        #expect(harness.system.lifecycleState == .background)
        harness.clock.advance(by: .seconds(3))
        harness.application.endBackgroundTask(delegate.task)
        #expect(harness.system.lifecycleState == .suspended)
    }

    @Test("didEnterBackgroundNotification is posted with the application as its object")
    func notificationPosted() {
        let harness = ManualHarness()
        let seen = Recorder<String>()
        let observer = NotificationCenter.default.addObserver(
            forName: UIApplication.didEnterBackgroundNotification,
            object: harness.application,
            queue: nil
        ) { note in seen.append(note.name.rawValue) }
        defer { NotificationCenter.default.removeObserver(observer) }
        harness.moveToBackground()
        #expect(seen.all == ["UIApplicationDidEnterBackgroundNotification"])
    }

    @Test("backgroundRefreshStatus follows the switches and Low Power Mode, and its change is notified")
    func refreshStatus() {
        let harness = ManualHarness()
        let seen = Recorder<UIBackgroundRefreshStatus>()
        let application = harness.application
        let observer = NotificationCenter.default.addObserver(
            forName: UIApplication.backgroundRefreshStatusDidChangeNotification,
            object: application,
            queue: nil
        ) { _ in seen.append(application.backgroundRefreshStatus) }
        defer { NotificationCenter.default.removeObserver(observer) }
        #expect(application.backgroundRefreshStatus == .available)
        harness.system.setBackgroundRefresh(.lowPowerMode(true))
        harness.clock.runPending()
        harness.system.setBackgroundRefresh(.lowPowerMode(false))
        harness.system.setBackgroundRefresh(.restricted(true))
        harness.clock.runPending()
        #expect(seen.all == [.denied, .restricted, .restricted])
        #expect(application.backgroundRefreshStatus == .restricted)
    }
}
