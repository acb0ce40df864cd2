import BackgroundSimulator
import Testing

@MainActor
@Suite("Simulator basics")
struct SimulatorBasicsTests {
    @Test("A refresh submitted at launch runs overnight on the charger, and the process is suspended after it")
    func refreshRunsOvernight() {
        let simulator = Simulator()
        let news = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) { process in
            BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { task in
                process.after(.seconds(5)) { task.setTaskCompleted(success: true) }
            }
            try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: "refresh"))
        }
        simulator.user.open(news)
        simulator.advance(by: .seconds(60))
        simulator.user.lock()
        simulator.device.plugIn()
        simulator.advance(by: .seconds(8 * 3600))
        let runs = simulator.taskRuns(of: news)
        #expect(runs.count == 1)
        #expect(runs.first?.outcome == .succeeded)
        #expect(simulator.state(of: news) == .suspended)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }

    @Test("The README's example runs as written")
    func readmeExample() {
        let simulator = Simulator(configuration: .init(seed: 42))
        let news = simulator.install(
            "com.example.news",
            permittedTaskIdentifiers: ["refresh"],
            backgroundModes: [.fetch]
        ) { process in  // runs at every launch
            BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { task in
                process.after(.seconds(8)) { task.setTaskCompleted(success: true) }  // 8 s of work
            }
            let request = BGAppRefreshTaskRequest(identifier: "refresh")
            request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
            try? BGTaskScheduler.shared.submit(request)
        }
        simulator.user.open(news)
        simulator.advance(by: .seconds(300))
        simulator.user.lock()
        simulator.device.plugIn()
        simulator.advance(by: .seconds(8 * 3600))  // milliseconds of real time
        let runs = simulator.taskRuns(of: news)
        #expect(!runs.isEmpty && runs.allSatisfy { $0.outcome == .succeeded })
        #expect(simulator.violations.isEmpty)
        #expect(simulator.logText().contains("day 1 00:05:00.000    com.example.news         active → inactive"))
    }

    @Test("An assertion that never ends is expired, then the app is killed with 0x8badf00d naming it")
    func leakedAssertionIsReported() {
        let simulator = Simulator()
        let app = simulator.install("com.example.leaky") { process in
            process.delegate = LeakyDelegate()
        }
        simulator.user.open(app)
        simulator.advance(by: .seconds(10))
        simulator.user.goHome()
        simulator.advance(by: .seconds(60))
        #expect(simulator.reports.count == 1)
        let report = simulator.reports.first
        #expect(report?.code == .watchdogTimeout)
        #expect(report?.leakedAssertions.map(\.name) == ["Upload"])
        #expect(simulator.state(of: app).hasProcess == false)
        #expect(simulator.violations.isEmpty, "\(simulator.violations)")
    }
}

@MainActor
final class LeakyDelegate: NSObject, UIApplicationDelegate {
    func applicationDidEnterBackground(_ application: UIApplication) {
        _ = application.beginBackgroundTask(withName: "Upload") {}
    }
}
