import BackgroundSimulator
import BackgroundSimulatorTesting
import Dispatch
import Foundation
import Testing

@MainActor
@Suite("The simulator's test kit")
struct SimulatorTestKitTests {
    @Test("A test reaches an app's UIApplication and BGTaskScheduler directly; they are what its code gets")
    func applicationAndScheduler() throws {
        let simulator = Simulator()
        var seen: [(UIApplication, BGTaskScheduler)] = []
        let news = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) { _ in
            seen.append((UIApplication.shared, BGTaskScheduler.shared))
            BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { task in
                task.setTaskCompleted(success: true)
            }
        }
        #expect(simulator.application(of: news) == nil)
        simulator.user.open(news)
        simulator.runPending()
        let application = try #require(simulator.application(of: news))
        let scheduler = try #require(simulator.taskScheduler(of: news))
        #expect(seen.count == 1 && seen[0].0 === application && seen[0].1 === scheduler)
        let request = BGAppRefreshTaskRequest(identifier: "refresh")
        request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
        try scheduler.submit(request)
        #expect(simulator.pendingRequests(of: news).map(\.identifier) == ["refresh"])
        let task = application.beginBackgroundTask(withName: "From the test")
        #expect(simulator.assertions(of: news).map(\.name) == ["From the test"])
        application.endBackgroundTask(task)
        #expect(simulator.assertions(of: news).isEmpty)
    }

    @Test("backgroundRefreshStatus(of:) follows the switches, as the app reads it")
    func refreshStatus() {
        let simulator = Simulator()
        var read: [UIBackgroundRefreshStatus] = []
        let news = simulator.install("com.example.news") { _ in
            read.append(UIApplication.shared.backgroundRefreshStatus)
        }
        #expect(simulator.backgroundRefreshStatus(of: news) == .available)
        simulator.device.setBackgroundAppRefresh(false, for: news)
        #expect(simulator.backgroundRefreshStatus(of: news) == .denied)
        simulator.user.open(news)
        simulator.runPending()
        #expect(read == [.denied])
    }

    @Test("The user stops a running continued-processing task: its expiration handler runs and the run ends")
    func userStopsContinuedProcessing() throws {
        let simulator = Simulator()
        let identifier = "com.example.notes.export.pdf"
        var expired = 0
        let notes = simulator.install("com.example.notes", permittedTaskIdentifiers: ["com.example.notes.export.*"]) {
            _ in
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                task.expirationHandler = {
                    expired += 1
                    task.setTaskCompleted(success: false)
                }
            }
        }
        simulator.user.open(notes)
        simulator.runPending()
        try simulator.taskScheduler(of: notes)?.submit(
            BGContinuedProcessingTaskRequest(identifier: identifier, title: "Export", subtitle: "PDF")
        )
        simulator.advance(by: .seconds(10))
        #expect(simulator.taskRuns(of: notes).map(\.outcome) == [nil])
        simulator.user.stopContinuedProcessingTask(identifier, of: notes)
        simulator.advance(by: .seconds(5))
        #expect(expired == 1)
        #expect(simulator.taskRuns(of: notes).map(\.outcome) == [.failed])
        #expect(simulator.events.contains { $0.kind == .user(.stopTask(notes, identifier)) })
    }

    @Test("A task run whose app is killed records .killed")
    func killedRun() {
        let simulator = Simulator()
        let news = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) { _ in
            BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { task in
                task.expirationHandler = {}  // ignores the expiration and never completes: the watchdog ends the app
            }
            try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: "refresh"))
        }
        simulator.user.open(news)
        simulator.advance(by: .seconds(1))
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        simulator.device.plugIn()
        simulator.advance(by: .seconds(6 * 3600))
        let run = simulator.taskRuns(of: news).first
        #expect(run != nil)
        #expect(run?.outcome == .killed)
        #expect(run?.endedAt != nil)
        #expect(simulator.reports.contains { $0.app == news && $0.code == .watchdogTimeout })
    }

    @Test("Faults belong to the simulator and app that raised them; onFault sees only its own")
    func faultsAreEachSimulators() {
        func run(_ app: AppID) -> (Simulator, [BackgroundFault]) {
            let simulator = Simulator()
            var hooked: [BackgroundFault] = []
            simulator.onFault = { hooked.append($0) }
            let id = simulator.install(app, permittedTaskIdentifiers: ["refresh"]) { _ in
                BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { _ in }
                BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { _ in }
            }
            simulator.user.open(id)
            simulator.runPending()
            return (simulator, hooked)
        }
        let (first, firstHooked) = run("com.example.first")
        let (second, secondHooked) = run("com.example.second")
        #expect(first.faults.map(\.app) == ["com.example.first"])
        #expect(second.faults.map(\.app) == ["com.example.second"])
        #expect(firstHooked == first.faults && secondHooked == second.faults)
        #expect(first.faults.first?.message.contains("refresh") == true)
    }

    /// An app whose launch code misuses `performExpiringActivity` (an empty reason).
    static func misusingApp(in simulator: Simulator) -> AppID {
        simulator.install("com.example.misuse") { _ in
            ProcessInfo.processInfo.performExpiringActivity(withReason: "") { _ in }
        }
    }

    @Test("Under .simulatorFaultsFailTheTest, a fault fails the test that caused it", .simulatorFaultsFailTheTest)
    func traitKeepsFaultsFailingTheTest() {
        let simulator = Simulator()
        #expect(simulator.onFault == nil, "the test's issue comes from the recorder, as without the trait")
        let app = Self.misusingApp(in: simulator)
        withKnownIssue("an empty reason is a fault on iOS") {
            simulator.user.open(app)
            simulator.runPending()
        } matching: {
            UnhandledFaultTests.isMisuseIssue($0)
        }
        #expect(simulator.faults.map(\.api) == ["performExpiringActivity(withReason:using:)"])
    }

    @Test("An EmbeddedSystem's faults go to its own onFault, naming its app")
    func embeddedFaultsAreItsOwn() {
        let faults = Seen<BackgroundFault>()
        var configuration = EmbeddedSystem.Configuration(
            app: "com.example.embedded",
            policy: .iOS,
            clock: .manual(ManualClock()),
            terminationBehavior: .record,
            reportsDirectory: nil,
            printsReportsToStandardError: false
        )
        configuration.onFault = { faults.append($0) }
        let system = EmbeddedSystem(configuration: configuration)
        ProcessInfo.processInfo.performExpiringActivity(
            withReason: "",
            application: UIApplication(connection: system)
        ) { _ in }
        #expect(faults.all.map(\.app) == ["com.example.embedded"])
    }

    @Test("Code the simulator cannot attribute to an app is stopped with a fault naming the call; it reaches no system")
    func unattributedCallsFault() async {
        await #expect(processExitsWith: .success) {
            let ok = await SimulatorTestKitTests.unattributedScenario()
            if !ok { exit(1) }
        }
    }

    /// Run in a child process, where nothing bootstrapped `UIApplication.shared`.
    static func unattributedScenario() async -> Bool {
        let simulator = Simulator()
        var faults: [BackgroundFault] = []
        simulator.onFault = { faults.append($0) }
        let result = Seen<UIBackgroundTaskIdentifier>()
        let app = simulator.install("com.example.detached") { _ in
            Task.detached {
                result.append(UIApplication.shared.beginBackgroundTask(withName: "Detached"))
            }
        }
        simulator.user.open(app)
        simulator.runPending()
        let arrived = await settle(simulator) { !faults.isEmpty }
        return arrived && result.all == [.invalid]
            && faults.map(\.api) == ["beginBackgroundTask(withName:expirationHandler:)"]
            && simulator.assertions(of: app).isEmpty
    }
}
