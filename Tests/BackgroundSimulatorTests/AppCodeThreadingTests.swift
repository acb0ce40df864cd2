import BackgroundSimulator
import Dispatch
import Foundation
import Synchronization
import Testing

// Simulated app code written the way iOS apps write it: `UIApplication.shared`,
// `BGTaskScheduler.shared` and `ProcessInfo` from main-queue blocks, Tasks, actors and
// background queues. Apple accepts every call here; so must the simulator.

/// A lock-based background-task wrapper, as real apps write it: begun anywhere, it hops to the
/// main queue to end its task (issue 8's regression: it once leaked in the simulator).
final class BackgroundTaskWrapper: @unchecked Sendable {
    private let lock = NSLock()
    private var identifier: UIBackgroundTaskIdentifier = .invalid

    func begin(_ name: String) {
        let id = UIApplication.shared.beginBackgroundTask(withName: name) { [weak self] in self?.end() }
        lock.lock()
        identifier = id
        lock.unlock()
    }

    func end() {
        DispatchQueue.main.async {
            self.lock.lock()
            let id = self.identifier
            self.identifier = .invalid
            self.lock.unlock()
            guard id != .invalid else { return }
            UIApplication.shared.endBackgroundTask(id)
        }
    }
}

/// An app delegate that syncs when the app enters the background, under the wrapper; `later`
/// runs the sync's end after its work (virtual time in the simulator, a manual clock embedded).
final class SyncingAppDelegate: UIResponder, UIApplicationDelegate, @unchecked Sendable {
    let wrapper = BackgroundTaskWrapper()
    var later: (@MainActor (Duration, @escaping @MainActor () -> Void) -> Void)?

    func applicationDidEnterBackground(_ application: UIApplication) {
        wrapper.begin("Sync")
        later?(.seconds(5)) { [wrapper] in wrapper.end() }
    }
}

/// An uploader actor: the app's Tasks call it, and it reaches the app's own `UIApplication`.
actor Uploader {
    private(set) var uploads = 0

    func upload() -> UIApplication {
        uploads += 1
        let application = UIApplication.shared
        let id = application.beginBackgroundTask(withName: "Upload")
        application.endBackgroundTask(id)
        return application
    }
}

/// Values written by app code on any thread and read by the test.
final class Seen<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Lets the simulator take calls from app code on real threads until `done` holds: a real-clock
/// wait (up to 10 s), since those threads run on the real clock.
@MainActor
func settle(_ simulator: Simulator, until done: @MainActor () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if done() { return true }
        await simulator.runMainQueue()
        simulator.runPending()
        try? await Task.sleep(for: .milliseconds(10))
    }
    return done()
}

/// What app code usually does at launch, with `BGTaskScheduler.shared`: registers a refresh
/// handler (which completes its task) and submits a request for an hour from now.
func scheduleRefresh(_ identifier: String) {
    BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
        task.setTaskCompleted(success: true)
    }
    let request = BGAppRefreshTaskRequest(identifier: identifier)
    request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
    try? BGTaskScheduler.shared.submit(request)
}

/// A flag app code raises on any thread; the test waits for it with ``settle(_:until:)``,
/// never by blocking a thread (under `dispatchMain()` the main queue needs the worker threads).
final class Flag: Sendable {
    private let raised = Mutex(false)
    func raise() { raised.withLock { $0 = true } }
    var isRaised: Bool { raised.withLock { $0 } }
}

@MainActor
@Suite("App code on any thread, queue or actor")
struct AppCodeThreadingTests {
    @Test("A wrapper that hops to the main queue to end its task ends it in the simulator (no 0x8badf00d)")
    func wrapperEndsItsTaskInTheSimulator() async {
        let simulator = Simulator()
        let sync = simulator.install("com.example.sync") { process in
            let delegate = SyncingAppDelegate()
            delegate.later = { delay, work in process.after(delay, work) }
            process.delegate = delegate
        }
        simulator.user.open(sync)
        await simulator.run(for: .seconds(1))
        simulator.user.goHome()
        await simulator.run(for: .seconds(60))
        #expect(simulator.reports.isEmpty, "\(simulator.reports)")
        #expect(simulator.state(of: sync) == .suspended)
        #expect(simulator.assertions(of: sync).isEmpty)
    }

    @Test("The same wrapper works on an EmbeddedSystem, in its own process")
    func wrapperEndsItsTaskEmbedded() async {
        await #expect(processExitsWith: .success) {
            let ok = await AppCodeThreadingTests.runWrapperOnEmbeddedSystem()
            if !ok { exit(1) }
        }
    }

    /// The wrapper's app on an embedded system on a manual clock, bootstrapped as an app's
    /// process would be; `true` when the sync ended its task in time.
    static func runWrapperOnEmbeddedSystem() async -> Bool {
        let clock = ManualClock()
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.sync",
                policy: .iOS,
                clock: .manual(clock),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false
            )
        )
        let application = UIApplication.bootstrap(system)
        let delegate = SyncingAppDelegate()
        delegate.later = { delay, work in _ = clock.schedule(after: delay) { work() } }
        application.delegate = delegate
        system.moveToBackground()
        for _ in 0..<10 {
            clock.advance(by: .seconds(1))
            await Task.yield()  // the main queue turns, as it does at once on a device
        }
        clock.advance(by: .seconds(60))
        return system.terminationReports.isEmpty && application.applicationState == .background
    }

    @Test("Main-queue blocks, Tasks and actors each reach the app whose code started them, with two apps")
    func sharedResolvesToTheRunningApp() async {
        let simulator = Simulator()
        let seen = Seen<(AppID, String, Bool)>()
        let uploader = Uploader()
        func launch(_ app: AppID) -> @MainActor (AppProcess) -> Void {
            { process in
                let mine = process.application
                DispatchQueue.main.async {
                    seen.append((app, "main-queue block", UIApplication.shared === mine))
                    seen.append((app, "BGTaskScheduler in a block", BGTaskScheduler.shared === mine.taskScheduler))
                }
                Task {
                    seen.append((app, "Task", UIApplication.shared === mine))
                    let reached = await uploader.upload()
                    seen.append((app, "actor", reached === mine))
                }
            }
        }
        let first = simulator.install("com.example.first", launch: launch("com.example.first"))
        let second = simulator.install("com.example.second", launch: launch("com.example.second"))
        simulator.user.open(first)
        simulator.user.open(second)
        await simulator.run(for: .seconds(1))
        #expect(await settle(simulator) { seen.all.count == 8 })  // the actor runs on another thread
        for (app, place, isItsOwn) in seen.all {
            #expect(isItsOwn, "\(place) of \(app) reached another app's UIApplication")
        }
        #expect(await uploader.uploads == 2)
        #expect(simulator.reports.isEmpty)
    }

    @Test("endBackgroundTask from a background queue ends the task (captured application and .shared alike)")
    func endFromBackgroundQueue() async {
        let simulator = Simulator()
        let go = Flag()
        let done = Flag()
        let app = simulator.install("com.example.upload") { process in
            let application = UIApplication.shared
            let captured = application.beginBackgroundTask(withName: "Captured")
            let shared = application.beginBackgroundTask(withName: "Shared")
            DispatchQueue.global().async {
                while !go.isRaised { usleep(1000) }  // the upload's work
                application.endBackgroundTask(captured)  // Apple: any thread
                UIApplication.shared.endBackgroundTask(shared)  // no app known here: routed by its identifier
                done.raise()
            }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(simulator.assertions(of: app).count == 2)
        go.raise()
        _ = await settle(simulator) { done.isRaised }
        #expect(await settle(simulator) { simulator.assertions(of: app).isEmpty })
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        #expect(simulator.state(of: app) == .suspended)
        #expect(simulator.reports.isEmpty)
    }

    @Test("endBackgroundTask from a background queue no longer stops the test process")
    func endFromBackgroundQueueInAChild() async {
        await #expect(processExitsWith: .success) {
            let ok = await AppCodeThreadingTests.backgroundEndScenario()
            if !ok { exit(1) }
        }
    }

    static func backgroundEndScenario() async -> Bool {
        let simulator = Simulator()
        let done = Flag()
        let app = simulator.install("com.example.upload") { _ in
            let id = UIApplication.shared.beginBackgroundTask(withName: "Upload")
            let application = UIApplication.shared
            DispatchQueue.global().async {
                application.endBackgroundTask(id)
                done.raise()
            }
        }
        simulator.user.open(app)
        simulator.runPending()
        _ = await settle(simulator) { done.isRaised }
        return await settle(simulator) { simulator.assertions(of: app).isEmpty }
    }

    @Test("await BGTaskScheduler.shared.pendingTaskRequests() from main-actor app code answers the app's requests")
    func pendingRequestsFromTheMainActor() async {
        let simulator = Simulator()
        let seen = Seen<[String]>()
        let app = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) { _ in
            scheduleRefresh("refresh")
            Task { @MainActor in
                let pending = await BGTaskScheduler.shared.pendingTaskRequests()
                seen.append(pending.map(\.identifier))
            }
        }
        let other = simulator.install(
            "com.example.other",
            permittedTaskIdentifiers: ["other"],
            backgroundModes: [.fetch]
        ) {
            _ in
            scheduleRefresh("other")
        }
        simulator.user.open(other)
        simulator.user.open(app)
        await simulator.run(for: .seconds(1))
        #expect(seen.all == [["refresh"]])
    }

    @Test("pendingTaskRequests() from main-actor code no longer stops the test process")
    func pendingRequestsInAChild() async {
        await #expect(processExitsWith: .success) {
            let ok = await AppCodeThreadingTests.pendingRequestsScenario()
            if !ok { exit(1) }
        }
    }

    static func pendingRequestsScenario() async -> Bool {
        let simulator = Simulator()
        let seen = Seen<Int>()
        let app = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) { process in
            scheduleRefresh("refresh")
            let scheduler = BGTaskScheduler.shared
            Task { @MainActor in seen.append(await scheduler.pendingTaskRequests().count) }
        }
        simulator.user.open(app)
        await simulator.run(for: .seconds(1))
        return seen.all == [1]
    }

    @Test("performExpiringActivity from main-actor app code protects its block, which ends the assertion")
    func expiringActivityFromTheMainActor() async {
        let simulator = Simulator()
        let done = Flag()
        let calls = Seen<Bool>()
        let app = simulator.install("com.example.notes") { process in
            process.delegate = SavingAppDelegate(calls: calls, done: done)
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(1))
        simulator.user.goHome()
        simulator.runPending()
        _ = await settle(simulator) { done.isRaised }
        #expect(await settle(simulator) { simulator.assertions(of: app).isEmpty })
        #expect(calls.all == [false])
        simulator.advance(by: .seconds(60))
        #expect(simulator.reports.isEmpty)
        #expect(simulator.state(of: app) == .suspended)
        let begun = simulator.events.filter {
            if case .appCall(app, .beginBackgroundTask(name: "Save draft", id: .some)) = $0.kind { true } else { false }
        }
        #expect(begun.count == 1)
    }

    @Test("performExpiringActivity from main-actor code no longer stops the test process")
    func expiringActivityInAChild() async {
        await #expect(processExitsWith: .success) {
            let ok = await AppCodeThreadingTests.expiringActivityScenario()
            if !ok { exit(1) }
        }
    }

    static func expiringActivityScenario() async -> Bool {
        let simulator = Simulator()
        let done = Flag()
        let calls = Seen<Bool>()
        let app = simulator.install("com.example.notes") { process in
            process.delegate = SavingAppDelegate(calls: calls, done: done)
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(1))
        simulator.user.goHome()
        simulator.runPending()
        _ = await settle(simulator) { done.isRaised }
        let ended = await settle(simulator) { simulator.assertions(of: app).isEmpty }
        simulator.advance(by: .seconds(60))
        return ended && calls.all == [false] && simulator.reports.isEmpty
    }
}

/// Saves its draft under `performExpiringActivity` when the app enters the background.
final class SavingAppDelegate: UIResponder, UIApplicationDelegate, @unchecked Sendable {
    var calls: Seen<Bool>?
    var done: Flag?

    convenience init(calls: Seen<Bool>, done: Flag) {
        self.init()
        self.calls = calls
        self.done = done
    }

    func applicationDidEnterBackground(_ application: UIApplication) {
        let calls = calls
        let done = done
        ProcessInfo.processInfo.performExpiringActivity(withReason: "Save draft") { expired in
            calls?.append(expired)
            if !expired { done?.raise() }
        }
    }
}
