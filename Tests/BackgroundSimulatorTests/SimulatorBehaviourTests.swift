import BackgroundSimulator
import Testing

/// A refresh-and-processing app used across these tests: registers both handlers at launch,
/// submits both requests, and completes each task after `work`.
@MainActor
func installNews(
    _ simulator: Simulator,
    work: Duration = .seconds(5),
    processing: TaskRequestShape = .init()
) -> AppID {
    simulator.install(
        "com.example.news",
        permittedTaskIdentifiers: ["refresh", "cleanup"],
        backgroundModes: [.fetch, .processing]
    ) { process in
        for identifier in ["refresh", "cleanup"] {
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
                process.after(work) { task.setTaskCompleted(success: true) }
            }
        }
        let refresh = BGAppRefreshTaskRequest(identifier: "refresh")
        refresh.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
        try? BGTaskScheduler.shared.submit(refresh)
        let cleanup = BGProcessingTaskRequest(identifier: "cleanup")
        cleanup.requiresExternalPower = processing.requiresExternalPower
        cleanup.requiresNetworkConnectivity = processing.requiresNetwork
        try? BGTaskScheduler.shared.submit(cleanup)
    }
}

struct TaskRequestShape {
    var requiresExternalPower = true
    var requiresNetwork = false
}

@MainActor
@Suite("Simulator behaviour")
struct SimulatorBehaviourTests {
    @Test("Same seed, same run: two simulators driven alike log identical events")
    func sameSeedSameRun() {
        func run() -> [SimulationEvent] {
            let simulator = Simulator(configuration: .init(seed: 9))
            let news = installNews(simulator)
            simulator.user.open(news)
            simulator.advance(by: .seconds(120))
            simulator.user.lock()
            simulator.advance(by: .seconds(20 * 3600))
            simulator.device.plugIn()
            simulator.advance(by: .seconds(6 * 3600))
            return simulator.events
        }
        let first = run()
        #expect(first.count > 50)
        #expect(first == run())
    }

    @Test("Work scheduled by a suspended app waits for its resume, and no suspended app runs code")
    func suspendedWorkWaits() {
        let simulator = Simulator()
        var ranAt: [Instant] = []
        let app = simulator.install("com.example.timer") { process in
            process.after(.seconds(600)) { ranAt.append(simulator.now) }
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(10))
        simulator.user.goHome()
        simulator.advance(by: .seconds(3600))
        #expect(ranAt.isEmpty)
        #expect(simulator.state(of: app) == .suspended)
        simulator.user.open(app)
        simulator.runPending()
        #expect(ranAt == [.seconds(3610)])
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("A processing task needing power waits for the charger and the idle device, then runs")
    func processingWaitsForChargerAndIdle() {
        let simulator = Simulator()
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.lock()
        simulator.advance(by: .seconds(4 * 3600))
        #expect(!simulator.taskRuns(of: news).contains { $0.identifier == "cleanup" })
        let why = simulator.eligibility(of: news, identifier: "cleanup")
        #expect(why?.unmet.contains(.requiresExternalPower) == true)
        simulator.device.plugIn()
        simulator.advance(by: .seconds(3600))
        let cleanup = simulator.taskRuns(of: news).first { $0.identifier == "cleanup" }
        #expect(cleanup?.outcome == .succeeded)
        #expect(simulator.deviceNow.powerSource == .externalPower)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("A reboot ends every process, keeps pending requests, and runs nothing before the first unlock")
    func rebootRestoresPersistedState() {
        let simulator = Simulator()
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.lock()
        let pending = simulator.pendingRequests(of: news).map(\.identifier).sorted()
        #expect(pending == ["cleanup", "refresh"])
        simulator.device.reboot()
        #expect(simulator.state(of: news) == .notRunning)
        #expect(simulator.pendingRequests(of: news).map(\.identifier).sorted() == pending)
        simulator.device.plugIn()
        simulator.advance(by: .seconds(6 * 3600))
        #expect(simulator.taskRuns(of: news).isEmpty)
        #expect(simulator.eligibility(of: news, identifier: "cleanup")?.unmet.contains(.notUnlockedSinceBoot) == true)
        simulator.user.unlock()
        simulator.user.lock()
        simulator.advance(by: .seconds(6 * 3600))
        #expect(simulator.taskRuns(of: news).contains { $0.identifier == "cleanup" && $0.outcome == .succeeded })
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Low Power Mode switches on at the policy's 20 % and off when charging reaches 80 %")
    func lowPowerModeFollowsTheBattery() {
        let simulator = Simulator(configuration: .init(device: DeviceState(batteryLevel: 0.25, isLocked: false)))
        simulator.advance(by: .seconds(3 * 3600))
        let switches = simulator.events.compactMap { event -> (Bool, Double)? in
            guard case .device(.lowPowerMode(let on, automatic: true), let state) = event.kind else { return nil }
            return (on, state.batteryLevel)
        }
        #expect(switches.count == 1)
        #expect(switches.first?.0 == true)
        #expect(abs((switches.first?.1 ?? 0) - 0.2) < 1e-9)
        #expect(simulator.deviceNow.lowPowerMode)
        simulator.device.plugIn()
        simulator.advance(by: .seconds(3 * 3600))
        #expect(!simulator.deviceNow.lowPowerMode)
        #expect(simulator.deviceNow.batteryLevel == 1)
    }

    @Test("A user who declines iOS's Low Power Mode offer: the battery passes 20 % and the mode stays off")
    func lowPowerModeDeclined() {
        var battery = BatteryModel()
        battery.switchesLowPowerModeOn = false
        let device = DeviceState(batteryLevel: 0.25, isLocked: false)
        let simulator = Simulator(configuration: .init(device: device, battery: battery))
        simulator.advance(by: .seconds(3 * 3600))
        #expect(simulator.deviceNow.batteryLevel < 0.2)
        #expect(!simulator.deviceNow.lowPowerMode)
        simulator.device.setLowPowerMode(false)
        let lowPowerEvents = simulator.events.filter { event in
            if case .device(.lowPowerMode, _) = event.kind { return true }
            return false
        }
        #expect(lowPowerEvents.isEmpty, "setting Low Power Mode to what it already is logs nothing")
    }

    @Test("An empty battery switches the device off with every app; the charger switches it on again")
    func emptyBatteryShutsDown() {
        let simulator = Simulator(configuration: .init(device: DeviceState(batteryLevel: 0.03, isLocked: false)))
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(3 * 3600))
        #expect(!simulator.deviceNow.isOn)
        #expect(simulator.process(of: news) == nil)
        simulator.user.open(news)
        #expect(simulator.process(of: news) == nil)
        simulator.device.plugIn()
        #expect(simulator.deviceNow.isOn)
        #expect(simulator.pendingRequests(of: news).map(\.identifier).sorted() == ["cleanup", "refresh"])
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("A force-quit app is not launched for its tasks until the user opens it again")
    func forceQuitBlocksBackgroundLaunches() {
        let simulator = Simulator()
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.forceQuit(news)
        simulator.user.lock()
        simulator.device.plugIn()
        simulator.advance(by: .seconds(12 * 3600))
        #expect(simulator.taskRuns(of: news).isEmpty)
        #expect(simulator.eligibility(of: news, identifier: "refresh")?.unmet.contains(.forceQuit) == true)
        #expect(simulator.reports.last?.reason == .userForceQuit)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("applicationDidEnterBackground that blocks the main thread past 5 s is killed with 0x8badf00d")
    func slowDidEnterBackgroundIsKilled() {
        let simulator = Simulator()
        let app = simulator.install("com.example.slow") { process in
            process.delegate = SlowBackgroundDelegate(process: process)
        }
        simulator.user.open(app)
        simulator.user.goHome()
        simulator.advance(by: .seconds(10))
        #expect(simulator.reports.first?.code == .watchdogTimeout)
        #expect(simulator.reports.first?.explanation.contains("applicationDidEnterBackground") == true)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Expiration handlers run on the main actor in begin order before the watchdog")
    func expirationHandlersInOrder() {
        let simulator = Simulator()
        var order: [String] = []
        let app = simulator.install("com.example.uploads") { process in
            process.delegate = BackgroundEntryDelegate { application in
                let ids = IdentifierList()
                for name in ["first", "second", "third"] {
                    ids.values.append(
                        application.beginBackgroundTask(withName: name) {
                            order.append(name)
                            if name != "third" { application.endBackgroundTask(ids.values[order.count - 1]) }
                        }
                    )
                }
            }
        }
        simulator.user.open(app)
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        #expect(order == ["first", "second", "third"])
        #expect(simulator.reports.first?.leakedAssertions.map(\.name) == ["third"])
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("The debugger's hooks: a pending request runs at once on battery, and expiring it calls its handler")
    func debuggerHooks() {
        let simulator = Simulator()
        let news = installNews(simulator, work: .seconds(600))
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        #expect(simulator.state(of: news) == .suspended)
        simulator.simulateLaunch(of: news, taskWithIdentifier: "cleanup")  // needs power; runs anyway
        simulator.runPending()
        #expect(simulator.taskRuns(of: news).map(\.identifier) == ["cleanup"])
        simulator.simulateExpiration(of: news, taskWithIdentifier: "cleanup")
        simulator.runPending()
        // No expiration handler: the system completes it unsuccessfully.
        #expect(simulator.taskRuns(of: news).first?.outcome == .failed)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("Endless work at one instant halts the run with a violation instead of hanging")
    func livelockHalts() {
        let simulator = Simulator()
        let app = simulator.install("com.example.spinner") { process in
            @MainActor func spin() { process.after(.zero) { spin() } }
            spin()
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(60))
        #expect(simulator.halted != nil)
        #expect(simulator.violations.map(\.invariant) == [.timeMovesOn])
        #expect(simulator.now == .seconds(60), "time still moves; nothing more happens")
    }

    @Test("A rule of the test's own is checked after every event and reported as a violation")
    func customInvariant() {
        let simulator = Simulator()
        simulator.addInvariant("never on external power") {
            $0.deviceNow.powerSource == .externalPower ? "charging" : nil
        }
        simulator.advance(by: .seconds(60))
        #expect(simulator.violations.isEmpty)
        simulator.device.plugIn()
        #expect(simulator.violations.first?.invariant == .custom)
        #expect(simulator.violations.first?.message.contains("never on external power") == true)
    }
}

@MainActor
final class SlowBackgroundDelegate: NSObject, UIApplicationDelegate {
    let process: AppProcess
    init(process: AppProcess) { self.process = process }

    func applicationDidEnterBackground(_ application: UIApplication) {
        process.blockMainThread(for: .seconds(7))
    }
}

/// Runs a closure in `applicationDidEnterBackground(_:)`.
@MainActor
final class BackgroundEntryDelegate: NSObject, UIApplicationDelegate {
    let body: @MainActor (UIApplication) -> Void
    init(_ body: @escaping @MainActor (UIApplication) -> Void) { self.body = body }

    func applicationDidEnterBackground(_ application: UIApplication) { body(application) }
}

/// Identifiers collected on the main actor and read by the handlers that end them.
@MainActor
final class IdentifierList {
    var values: [UIBackgroundTaskIdentifier] = []
}
