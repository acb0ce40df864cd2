import BackgroundSimulator
import BackgroundSimulatorTesting
import Dispatch
import Foundation
import Testing

// Issue 8 §4: a wrapper that hops to the main queue to end its task once ended it on the
// process-wide default system, not its app's. These run it where that would show: beside a
// bootstrapped system (in a child process, since bootstrapping is process-wide), and with two
// apps; and check that runs whose app code uses main-queue blocks stay deterministic.

@MainActor
@Suite("The wrapper's end reaches its own app's system", .simulatorFaultsFailTheTest)
struct RightSystemTests {
    /// Two apps with the wrapper delegate, sent to the background together; then `seconds` of
    /// virtual time with the main queue turning.
    static func twoSyncingApps(for seconds: Int = 60) async -> (Simulator, [AppID]) {
        let simulator = Simulator()
        let apps = ["com.example.mail", "com.example.notes"].map { (id: AppID) in
            simulator.install(id) { process in
                let delegate = SyncingAppDelegate()
                delegate.later = { delay, work in process.after(delay, work) }
                process.delegate = delegate
            }
        }
        for app in apps { simulator.user.open(app) }
        await simulator.run(for: .seconds(1))
        simulator.user.goHome()  // the foreground app goes; the other went when the second opened
        await simulator.run(for: .seconds(seconds))
        return (simulator, apps)
    }

    @Test("Two apps' wrappers end their own tasks in the main queue: no 0x8badf00d, no task left")
    func twoApps() async {
        let (simulator, apps) = await Self.twoSyncingApps()
        #expect(simulator.reports.isEmpty, "\(simulator.reports)")
        for app in apps {
            #expect(simulator.state(of: app) == .suspended)
            #expect(simulator.assertions(of: app).isEmpty)
            let ends = simulator.events.filter {
                if case .appCall(app, .endBackgroundTask) = $0.kind { true } else { false }
            }
            #expect(ends.count == 1, "each app ended its own sync")
        }
    }

    @Test("Beside a bootstrapped system, the wrapper's end reaches the simulated app, never the bootstrapped one")
    func besideABootstrappedSystem() async {
        await #expect(processExitsWith: .success) {
            let ok = await RightSystemTests.wrapperBesideABootstrappedSystem()
            if !ok { exit(1) }
        }
    }

    /// In a child process: `UIApplication.shared` bootstrapped to an embedded system (as an app
    /// under test might be), and the simulator's apps running the wrapper.
    static func wrapperBesideABootstrappedSystem() async -> Bool {
        let embedded = EmbeddedSystem(
            configuration: .init(
                app: "com.example.host",
                policy: .iOS,
                clock: .manual(ManualClock()),
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false
            )
        )
        UIApplication.bootstrap(embedded)
        let (simulator, apps) = await twoSyncingApps()
        let simulatedClean =
            simulator.reports.isEmpty && apps.allSatisfy { simulator.assertions(of: $0).isEmpty }
        let embeddedUntouched =
            embedded.assertions.isEmpty
            && embedded.terminationReports.isEmpty
        return simulatedClean && embeddedUntouched
    }

    @Test("Runs whose app code ends its tasks from main-queue blocks are deterministic under run(for:)")
    func deterministicWithMainQueueWork() async {
        let (first, _) = await Self.twoSyncingApps()
        let (second, _) = await Self.twoSyncingApps()
        #expect(first.events.map { "\($0)" } == second.events.map { "\($0)" })
        #expect(!first.events.isEmpty)
    }
}
