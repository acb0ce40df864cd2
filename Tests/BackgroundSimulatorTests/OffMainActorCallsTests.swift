import BackgroundSimulator
import BackgroundSimulatorTesting
import Dispatch
import Foundation
import Synchronization
import Testing

// Calls app code makes off the main actor never wait for it: on a device they do not, and app
// code that holds a lock, or a main actor that waits for a queue, would deadlock if they did.
// The first test deadlocked the whole test process when such calls blocked their thread until
// the simulator's main actor answered. The time limit is generous: under load a full run's
// other suites can hold the shared main actor and thread pool for minutes.

/// Reads the app's pending requests from an actor: off the main actor, as apps' stores do.
actor PendingRequestsReader {
    func identifiers() async -> [String] {
        await BGTaskScheduler.shared.pendingTaskRequests().map(\.identifier)
    }
}

/// A background-task wrapper that begins its task while holding its lock, on whatever thread
/// calls it, and ends it from the expiration handler under the same lock: common in apps.
final class LockedTaskWrapper: @unchecked Sendable {
    private let lock = NSLock()
    private var identifier: UIBackgroundTaskIdentifier = .invalid
    private let application: UIApplication

    init(_ application: UIApplication) { self.application = application }

    func begin(_ name: String) {
        lock.lock()
        defer { lock.unlock() }
        identifier = application.beginBackgroundTask(withName: name) { [weak self] in self?.end() }
    }

    func end() {
        lock.lock()
        let id = identifier
        identifier = .invalid
        lock.unlock()
        if id != .invalid { application.endBackgroundTask(id) }
    }

    var isHolding: Bool {
        lock.lock()
        defer { lock.unlock() }
        return identifier != .invalid
    }
}

@MainActor
@Suite("Calls off the main actor never wait for it", .simulatorFaultsFailTheTest, .timeLimit(.minutes(10)))
struct OffMainActorCallsTests {
    @Test(
        "Main-actor app code that waits for a queue which begins a task (DispatchQueue.global().sync) does not deadlock"
    )
    func mainActorWaitsForAQueue() async {
        let simulator = Simulator()
        let seen = Seen<UIBackgroundTaskIdentifier>()
        let app = simulator.install("com.example.export") { process in
            let application = process.application
            let id = DispatchQueue.global().sync { application.beginBackgroundTask(withName: "Export") }
            seen.append(id)
            process.after(.seconds(2)) { application.endBackgroundTask(id) }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(seen.all.count == 1 && seen.all.first != .invalid)
        #expect(simulator.assertions(of: app).map(\.name) == ["Export"], "the begin arrived at the next step")
        simulator.advance(by: .seconds(3))
        #expect(simulator.assertions(of: app).isEmpty, "its end, on the main actor, ended it")
    }

    @Test(
        "A wrapper that begins under its lock on a background queue gets its task; its handler ends it under the lock"
    )
    func beginUnderALock() async {
        let simulator = Simulator()
        let wrappers = Seen<LockedTaskWrapper>()
        let app = simulator.install("com.example.upload") { process in
            let wrapper = LockedTaskWrapper(process.application)
            wrappers.append(wrapper)
            // Never make the main actor wait for a global queue in a test: under load the global
            // queues' few threads may all be waiting for the main actor (the first version of
            // this test did, and held every main-actor test of the run for minutes).
            DispatchQueue.global().async { wrapper.begin("Upload") }
        }
        simulator.user.open(app)
        simulator.runPending()
        let wrapper = wrappers.all[0]
        #expect(await settle(simulator) { wrapper.isHolding && simulator.assertions(of: app).count == 1 })
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))  // the budget ends: the handler ends the task under the lock
        #expect(!wrapper.isHolding)
        #expect(simulator.assertions(of: app).isEmpty)
        #expect(simulator.reports.isEmpty, "\(simulator.reports)")
        #expect(simulator.state(of: app) == .suspended)
    }

    @Test("A begin off the main actor that the system would deny returns .invalid at once; its handler runs")
    func deniedOffTheMainActor() async {
        var configuration = Simulator.Configuration()
        configuration.policy.grantsAssertions = false
        let simulator = Simulator(configuration: configuration)
        let ids = Seen<UIBackgroundTaskIdentifier>()
        let handled = Flag()
        let app = simulator.install("com.example.denied") { process in
            let application = process.application
            DispatchQueue.global().async {
                ids.append(application.beginBackgroundTask(withName: "Denied") { handled.raise() })
            }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(await settle(simulator) { handled.isRaised })
        #expect(ids.all == [.invalid])
        #expect(simulator.assertions(of: app).isEmpty)
    }

    @Test("pendingTaskRequests() from an actor the app's Task calls answers the app's own requests")
    func pendingRequestsFromAnActor() async {
        let simulator = Simulator()
        let seen = Seen<[String]>()
        let reader = PendingRequestsReader()
        let app = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) {
            _ in
            scheduleRefresh("refresh")
            Task { seen.append(await reader.identifiers()) }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(await settle(simulator) { !seen.all.isEmpty })
        #expect(seen.all == [["refresh"]])
    }

    @Test("submit and getPendingTaskRequests from a background queue reach the app's system")
    func submitFromABackgroundQueue() async {
        let simulator = Simulator()
        let seen = Seen<[String]>()
        let app = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) {
            _ in
            let scheduler = BGTaskScheduler.shared
            scheduler.register(forTaskWithIdentifier: "refresh", using: nil) { _ in }
            DispatchQueue.global().async {
                let request = BGAppRefreshTaskRequest(identifier: "refresh")
                request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
                try? scheduler.submit(request)
                scheduler.getPendingTaskRequests { seen.append($0.map(\.identifier)) }
            }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(await settle(simulator) { !seen.all.isEmpty })
        #expect(seen.all == [["refresh"]])
        #expect(simulator.pendingRequests(of: app).map(\.identifier) == ["refresh"])
    }

    @Test("A mode activity begun on a background queue keeps a declaring app running; an undeclared one does not")
    func modeActivityOffTheMainActor() async {
        let simulator = Simulator()
        let activities = Seen<BackgroundActivity>()
        let app = simulator.install("com.example.player", permittedTaskIdentifiers: [], backgroundModes: [.audio]) {
            process in
            let application = process.application
            DispatchQueue.global().async {
                activities.append(application.beginPlayingAudio())  // AVAudioSession set up off the main thread
                activities.append(application.beginUpdatingLocation())
            }
        }
        simulator.user.open(app)
        simulator.runPending()
        #expect(await settle(simulator) { activities.all.count == 2 })
        let all = activities.all
        #expect(all.map(\.mode) == [.audio, .location])
        #expect(all.map(\.keepsAppRunning) == [true, false])
        #expect(all.last?.refusal?.contains("UIBackgroundModes") == true)
        simulator.user.goHome()
        simulator.advance(by: .seconds(600))
        #expect(simulator.state(of: app) == .background, "the audio, held when its begin arrived, keeps it running")
        all[0].end()
        simulator.advance(by: .seconds(60))
        #expect(simulator.state(of: app) == .suspended)
    }

    @Test("applicationState and backgroundTimeRemaining off the main actor answer from the state last published")
    func queriesOffTheMainActor() async {
        let simulator = Simulator()
        let seen = Seen<(UIApplication.State, TimeInterval)>()
        let app = simulator.install("com.example.sync") { _ in }
        simulator.user.open(app)
        simulator.runPending()
        let application = simulator.application(of: app)!
        let task = application.beginBackgroundTask(withName: "Sync")
        simulator.user.goHome()
        simulator.advance(by: .seconds(10))
        DispatchQueue.global().async {
            seen.append((application.applicationState, application.backgroundTimeRemaining))
        }
        #expect(await settle(simulator) { !seen.all.isEmpty })
        #expect(seen.all.first?.0 == .background)
        #expect(seen.all.first?.1 == 20, "30 s of budget, 10 s gone")
        #expect(seen.all.first?.1 == simulator.backgroundTimeRemaining(of: app)?.seconds)
        application.endBackgroundTask(task)
    }
}
