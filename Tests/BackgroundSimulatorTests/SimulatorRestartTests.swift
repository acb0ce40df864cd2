import BackgroundSimulator
import Testing

/// Reboots, empty batteries and settings: what must survive, what must not, and what the log
/// and the timeline show (regressions found by review).
@MainActor
@Suite("Simulator: reboots, shutdowns and settings")
struct SimulatorRestartTests {
    @Test("Task runs before and after a reboot are each listed once, though the new system numbers runs from 1")
    func runsAcrossReboot() {
        let simulator = Simulator()
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.lock()
        simulator.device.plugIn()
        simulator.advance(by: .seconds(3 * 3600))
        let before = simulator.taskRuns(of: news).count
        #expect(before >= 1)
        simulator.device.reboot()
        simulator.user.open(news)  // its launch submits both requests again
        simulator.advance(by: .seconds(60))
        simulator.user.lock()
        simulator.advance(by: .seconds(6 * 3600))
        let runs = simulator.taskRuns(of: news)
        #expect(runs.count > before)
        #expect(runs.allSatisfy { $0.outcome != nil })
        #expect(Set(runs.map(\.run.startedAt)).count == runs.count, "no run listed twice")
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("A phone that is off answers as off: no process starts, not even for the debugger")
    func offMeansOff() {
        let simulator = Simulator(configuration: .init(device: DeviceState(batteryLevel: 0.5, isLocked: false)))
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.goHome()
        simulator.device.setBatteryLevel(0)
        #expect(!simulator.deviceNow.isOn)
        #expect(simulator.state(of: news) == .notRunning)
        simulator.simulateLaunch(of: news, taskWithIdentifier: "refresh")
        simulator.advance(by: .seconds(3600))
        #expect(simulator.process(of: news) == nil)
        #expect(simulator.taskRuns(of: news).isEmpty)
        simulator.device.plugIn()
        #expect(simulator.deviceNow.isOn)
        #expect(simulator.pendingRequests(of: news).map(\.identifier).sorted() == ["cleanup", "refresh"])
    }

    @Test("Unplugging at 0 % switches the phone off at once")
    func unplugAtZero() {
        let simulator = Simulator(
            configuration: .init(device: DeviceState(batteryLevel: 0, powerSource: .externalPower))
        )
        #expect(simulator.deviceNow.isOn)
        simulator.device.unplug()
        #expect(!simulator.deviceNow.isOn)
    }

    @Test("Background App Refresh switches survive a reboot, and switches changed while off apply at start")
    func refreshSwitchesSurvive() {
        let simulator = Simulator()
        let news = installNews(simulator)
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.device.setBackgroundAppRefresh(false)
        simulator.device.reboot()
        #expect(simulator.process(of: news) == nil)
        #expect(UIBackgroundRefreshStatus.denied == deniedStatus(simulator, news))
        simulator.device.setBackgroundAppRefresh(true)
        simulator.device.setBatteryLevel(0)  // off
        simulator.device.setBackgroundAppRefresh(false, for: news)
        simulator.device.plugIn()  // on again
        #expect(
            simulator.eligibility(of: news, identifier: "refresh")?.unmet.contains(.backgroundAppRefreshOff(.denied))
                == true
        )
    }

    private func deniedStatus(_ simulator: Simulator, _ app: AppID) -> UIBackgroundRefreshStatus? {
        simulator.eligibility(of: app, identifier: "refresh")?.unmet.contains(.backgroundAppRefreshOff(.denied)) == true
            ? .denied : nil
    }

    @Test("Launch code sees the app inactive; it becomes active after")
    func launchSeesInactive() {
        let simulator = Simulator()
        var seen: [UIApplication.State] = []
        let app = simulator.install("com.example.states") { _ in seen.append(UIApplication.shared.applicationState) }
        simulator.user.open(app)
        simulator.runPending()
        #expect(seen == [.inactive])
        #expect(simulator.state(of: app) == .active)
    }

    @Test("The timeline ends every lane at a reboot: states, held assertions and running tasks")
    func timelineAfterReboot() throws {
        let simulator = Simulator()
        let app = simulator.install("com.example.sync") { process in
            process.delegate = BackgroundEntryDelegate { application in
                _ = application.beginBackgroundTask(withName: "Sync") {}
            }
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(10))
        simulator.user.goHome()
        simulator.advance(by: .seconds(5))
        simulator.device.reboot()
        simulator.advance(by: .seconds(3600))
        let lane = try #require(TimelineDocument(simulator: simulator, title: "reboot").apps.first)
        let sync = try #require(lane.assertions.first)
        #expect(sync.end == 15)
        #expect(lane.states.last?.label == "notRunning")
        #expect(lane.states.last?.start == 15)
        #expect(lane.budget.contains { $0.depleting }, "the budget ramps down while the assertion is held")
    }
}
