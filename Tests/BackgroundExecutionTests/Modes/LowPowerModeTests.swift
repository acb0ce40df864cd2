import BackgroundCore
import BackgroundExecution
import BackgroundTestSupport
import Dispatch
import Foundation
import Testing

/// `ProcessInfo.isLowPowerModeEnabled` and `NSProcessInfoPowerStateDidChange` in embedded mode:
/// the value follows the device the app sets, and a change is posted, with
/// `ProcessInfo.processInfo` as its object, off the main queue as Apple posts it.
@Suite("ProcessInfo: Low Power Mode and its change notification")
@MainActor
struct LowPowerModeTests {
    /// Counts the notifications posted; `wait` waits (real clock: the post is on a global queue)
    /// until `count` more have arrived, at most 5 s, polling with `Task.sleep` so no thread of
    /// the cooperative pool is held.
    final class Observer: @unchecked Sendable {
        private let lock = NSLock()
        private var posts: [(object: AnyObject?, mainThread: Bool)] = []
        private var awaited = 0
        private var token: (any NSObjectProtocol)?

        init() {
            token = NotificationCenter.default.addObserver(
                forName: .NSProcessInfoPowerStateDidChange,
                object: nil,
                queue: nil
            ) { [self] notification in
                let object = notification.object as AnyObject?
                lock.withLock { posts.append((object, Thread.isMainThread)) }
            }
        }

        func wait(for count: Int) async -> Bool {
            let target = lock.withLock {
                awaited += count
                return awaited
            }
            return await waitUntil(timeout: .seconds(5)) { self.count >= target }
        }

        var count: Int { lock.withLock { posts.count } }
        var allFromProcessInfoOffMain: Bool {
            lock.withLock { posts.allSatisfy { $0.object === ProcessInfo.processInfo && !$0.mainThread } }
        }

        deinit { token.map(NotificationCenter.default.removeObserver) }
    }

    @Test("off on a server's device; on when the app's device says so; each change posted")
    func followsTheDevice() async throws {
        let h = SchedulerHarness()
        let observer = Observer()
        #expect(!ProcessInfo.processInfo.isLowPowerModeEnabled(application: h.application))
        var device = EmbeddedSystem.serverDevice
        device.lowPowerMode = true
        h.system.setDevice(device)
        #expect(ProcessInfo.processInfo.isLowPowerModeEnabled(application: h.application))
        let posted = await observer.wait(for: 1)
        #expect(posted)
        h.system.setDevice(device)  // no change: nothing posted
        device.lowPowerMode = false
        h.system.setDevice(device)
        #expect(!ProcessInfo.processInfo.isLowPowerModeEnabled(application: h.application))
        let again = await observer.wait(for: 1)
        #expect(again)
        // The notification is process-wide and other suites running in parallel post it too, so
        // the count is not checked here; that only a change is told is the core's rule
        // (BackgroundRefreshStatusTests.deviceLowPowerMode).
        #expect(observer.count >= 2)
        #expect(observer.allFromProcessInfoOffMain)
    }
}
