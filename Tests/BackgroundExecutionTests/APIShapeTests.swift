import BackgroundExecution
import Foundation
import Testing

/// An app's own abstraction that copies Apple's signatures, as real iOS code does for testing.
protocol BackgroundTaskRunning: AnyObject {
    func beginBackgroundTask(
        withName taskName: String?,
        expirationHandler handler: (@MainActor @Sendable () -> Void)?
    ) -> UIBackgroundTaskIdentifier
    func beginBackgroundTask(
        expirationHandler handler: (@MainActor @Sendable () -> Void)?
    ) -> UIBackgroundTaskIdentifier
    func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier)
    var backgroundTimeRemaining: TimeInterval { get }
    var applicationState: UIApplication.State { get }
    var backgroundRefreshStatus: UIBackgroundRefreshStatus { get }
}

extension UIApplication: BackgroundTaskRunning {}

/// Code that holds an injected application, as apps do.
final class Saver: Sendable {
    let app: UIApplication
    init(app: UIApplication) { self.app = app }
}

@Suite("API shapes match UIKit's")
struct APIShapeTests {
    @Test("UIBackgroundTaskIdentifier is RawRepresentable over Int, Hashable and Sendable, with .invalid")
    func identifierShape() {
        func requiresRawInt<T: RawRepresentable & Hashable & Sendable>(_: T.Type) -> Bool where T.RawValue == Int {
            true
        }
        #expect(requiresRawInt(UIBackgroundTaskIdentifier.self))
        let id = UIBackgroundTaskIdentifier(rawValue: 3)
        #expect(id.rawValue == 3)
        #expect(Set([id, UIBackgroundTaskIdentifier(rawValue: 3)]).count == 1)
        #expect(UIBackgroundTaskIdentifier.invalid != id)
        #expect(UIBackgroundTaskIdentifier.invalid.rawValue == 0)
    }

    @Test("UIApplication.State and UIBackgroundRefreshStatus have Apple's raw values")
    func rawValues() {
        #expect(UIApplication.State.active.rawValue == 0)
        #expect(UIApplication.State.inactive.rawValue == 1)
        #expect(UIApplication.State.background.rawValue == 2)
        #expect(UIBackgroundRefreshStatus.restricted.rawValue == 0)
        #expect(UIBackgroundRefreshStatus.denied.rawValue == 1)
        #expect(UIBackgroundRefreshStatus.available.rawValue == 2)
    }

    @Test("An app protocol copying Apple's signatures is satisfied by UIApplication, and calls through it work")
    func protocolConformance() {
        let harness = ManualHarness()
        let runner: any BackgroundTaskRunning = harness.application
        let id = runner.beginBackgroundTask(withName: "ViaProtocol", expirationHandler: nil)
        #expect(id.rawValue == 1)
        #expect(harness.system.assertions.map(\.name) == ["ViaProtocol"])
        #expect(harness.system.assertions.first?.origin == .unknown)
        runner.endBackgroundTask(id)
        #expect(harness.system.assertions.isEmpty)
        #expect(runner.backgroundTimeRemaining == .greatestFiniteMagnitude)
        #expect(runner.applicationState == .active)
    }

    @Test("UIApplication can be stored, injected and used from a nonisolated context; begin is discardable")
    func storedAndInjected() async {
        let harness = ManualHarness()
        let saver = Saver(app: harness.application)
        let app: UIApplication = saver.app
        app.beginBackgroundTask(withName: "Discarded")  // @discardableResult: no warning
        let id = await Task.detached { app.beginBackgroundTask(withName: "FromDetachedTask") }.value
        #expect(id.rawValue == 2)
        #expect(harness.system.assertions.count == 2)
    }

    @Test("endBackgroundTask works synchronously from any queue or actor, with or without await")
    func endFromAnywhere() async {
        let harness = ManualHarness()
        let app = harness.application
        let first = app.beginBackgroundTask(withName: "A")
        let second = app.beginBackgroundTask(withName: "B")
        let third = app.beginBackgroundTask(withName: "C")
        DispatchQueue.global().sync { app.endBackgroundTask(first) }
        await MainActor.run { app.endBackgroundTask(second) }
        await EndingActor().end(third, on: app)
        #expect(harness.system.assertions.isEmpty)
    }

    @Test("The expiration handler parameter is (@MainActor @Sendable () -> Void)?")
    func handlerType() {
        let handler: (@MainActor @Sendable () -> Void)? = { MainActor.assertIsolated() }
        let harness = ManualHarness()
        let id = harness.application.beginBackgroundTask(withName: "Typed", expirationHandler: handler)
        #expect(id != .invalid)
    }
}

actor EndingActor {
    func end(_ id: UIBackgroundTaskIdentifier, on app: UIApplication) {
        app.endBackgroundTask(id)
    }
}
