import BackgroundExecution
import Foundation
import Testing

@Suite("BGTaskScheduler.Error behaves like URLError")
struct BGTaskSchedulerErrorTests {
    @Test("`catch BGTaskScheduler.Error.notPermitted` matches the error thrown for an unlisted identifier")
    func catchPattern() {
        let harness = SchedulerHarness()
        var caught = ""
        do {
            try harness.scheduler.submit(BGAppRefreshTaskRequest(identifier: "com.example.tests.unlisted"))
        } catch BGTaskScheduler.Error.unavailable {
            caught = "unavailable"
        } catch BGTaskScheduler.Error.notPermitted {
            caught = "notPermitted"
        } catch {
            caught = "other: \(error)"
        }
        #expect(caught == "notPermitted")
    }

    @Test("`switch error.code` with `@unknown default` compiles and sees Apple's codes and raw values")
    func switchOnCode() {
        func name(_ error: BGTaskScheduler.Error) -> String {
            switch error.code {
            case .unavailable: return "unavailable"
            case .tooManyPendingTaskRequests: return "tooMany"
            case .notPermitted: return "notPermitted"
            case .immediateRunIneligible: return "immediateRunIneligible"
            @unknown default: return "unknown"
            }
        }
        #expect(name(BGTaskScheduler.Error(.tooManyPendingTaskRequests)) == "tooMany")
        #expect(BGTaskScheduler.Error.Code.unavailable.rawValue == 1)
        #expect(BGTaskScheduler.Error.Code.tooManyPendingTaskRequests.rawValue == 2)
        #expect(BGTaskScheduler.Error.Code.notPermitted.rawValue == 3)
        #expect(BGTaskScheduler.Error.Code.immediateRunIneligible.rawValue == 4)
    }

    @Test("`(error as NSError)` bridges to BGTaskSchedulerErrorDomain with Apple's code")
    func nsErrorBridge() {
        let error: any Error = BGTaskScheduler.Error(.notPermitted)
        let bridged = error as NSError
        #expect(bridged.domain == "BGTaskSchedulerErrorDomain")
        #expect(bridged.code == 3)
        #expect(BGTaskScheduler.Error.errorDomain == "BGTaskSchedulerErrorDomain")
    }

    @Test("Too many pending refresh requests: a second refresh with another identifier is refused")
    func tooManyRefresh() throws {
        let harness = SchedulerHarness()
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: nil) { _ in }
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { _ in }
        try harness.scheduler.submit(BGAppRefreshTaskRequest(identifier: SchedulerHarness.refresh))
        #expect(throws: BGTaskScheduler.Error(.tooManyPendingTaskRequests)) {
            try harness.scheduler.submit(BGAppRefreshTaskRequest(identifier: SchedulerHarness.cleanup))
        }
    }

    @Test("Without the `processing` background mode a processing request is not permitted")
    func missingMode() {
        let harness = SchedulerHarness(modes: [.fetch])
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.cleanup, using: nil) { _ in }
        #expect(throws: BGTaskScheduler.Error(.notPermitted)) {
            try harness.scheduler.submit(BGProcessingTaskRequest(identifier: SchedulerHarness.cleanup))
        }
    }

    @Test("With Background App Refresh off, submitting is unavailable")
    func unavailable() {
        let harness = SchedulerHarness()
        harness.scheduler.register(forTaskWithIdentifier: SchedulerHarness.refresh, using: nil) { _ in }
        harness.system.setBackgroundRefresh(.systemSwitch(false))
        #expect(throws: BGTaskScheduler.Error(.unavailable)) {
            try harness.scheduler.submit(BGAppRefreshTaskRequest(identifier: SchedulerHarness.refresh))
        }
    }
}
