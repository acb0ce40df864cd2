import BackgroundCore
import BackgroundExecution
import Dispatch
import Foundation
import Testing

/// `ProcessInfo.isLowPowerModeEnabled` and `NSProcessInfoPowerStateDidChange` in embedded mode:
/// the value follows the device the app sets, and a change is posted, with
/// `ProcessInfo.processInfo` as its object, off the main queue as Apple posts it.
@Suite("ProcessInfo: Low Power Mode and its change notification")
@MainActor
struct LowPowerModeTests {
    /// Counts the notifications posted; `wait` blocks (real clock: the post is on a global queue)
    /// until `count` have arrived, at most 5 s.
    final class Observer: @unchecked Sendable {
        private let lock = NSLock()
        private var posts: [(object: AnyObject?, mainThread: Bool)] = []
        private let arrived = DispatchSemaphore(value: 0)
        private var token: (any NSObjectProtocol)?

        init() {
            token = NotificationCenter.default.addObserver(
                forName: .NSProcessInfoPowerStateDidChange,
                object: nil,
                queue: nil
            ) { [self] notification in
                let object = notification.object as AnyObject?
                lock.withLock { posts.append((object, Thread.isMainThread)) }
                arrived.signal()
            }
        }

        func wait(for count: Int) -> Bool {
            for _ in 0..<count where arrived.wait(timeout: .now() + 5) != .success { return false }
            return true
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
        let posted = await Task.detached { observer.wait(for: 1) }.value
        #expect(posted)
        h.system.setDevice(device)  // no change: nothing posted
        device.lowPowerMode = false
        h.system.setDevice(device)
        #expect(!ProcessInfo.processInfo.isLowPowerModeEnabled(application: h.application))
        let again = await Task.detached { observer.wait(for: 1) }.value
        #expect(again)
        // The notification is process-wide and other suites running in parallel post it too, so
        // the count is not checked here; that only a change is told is the core's rule
        // (BackgroundRefreshStatusTests.deviceLowPowerMode).
        #expect(observer.count >= 2)
        #expect(observer.allFromProcessInfoOffMain)
    }
}
