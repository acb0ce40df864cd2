import BackgroundExecution
import Foundation
import Testing

/// The embedded system follows the core's contract: one time origin and one date conversion,
/// denials carried out from `.assertionDenied`, and nothing of an ended incarnation running for
/// the next (docs/core-contract.md).
@MainActor
struct CoreContractTests {
    @Test("A date becomes now plus its distance from the real clock's now, rounded to the nearest second")
    func oneDateConversion() {
        let now = Instant.seconds(100)
        #expect(SystemTime.instant(for: Date(timeIntervalSinceNow: 900), now: now) == .seconds(1000))
        #expect(SystemTime.instant(for: Date(timeIntervalSinceNow: 0.4), now: now) == .seconds(100))
        #expect(SystemTime.instant(for: Date(timeIntervalSinceNow: 1.6), now: now) == .seconds(102))
        #expect(SystemTime.instant(for: Date(timeIntervalSinceNow: -30), now: now) == .seconds(70))
        let back = SystemTime.date(for: .seconds(160), now: now).timeIntervalSinceNow
        #expect(abs(back - 60) < 1)
        // Both shells convert the same way: the embedded system on a manual clock, to the second.
        let harness = ManualHarness()
        harness.clock.advance(by: .seconds(5))
        #expect(harness.system.instant(for: Date(timeIntervalSinceNow: 60.3)) == .seconds(65))
    }

    @Test("On the real clock an instant is the time since boot, shared by every process, not since the system started")
    func bootClockOrigin() {
        let before = SystemTime.bootClockNow
        let system = EmbeddedSystem(
            configuration: .init(
                app: "com.example.boot",
                policy: .iOS,
                terminationBehavior: .record,
                reportsDirectory: nil,
                printsReportsToStandardError: false
            )
        )
        let now = system.now
        let after = SystemTime.bootClockNow
        #expect(before <= now && now <= after)
        #expect(before > .zero)
    }

    @Test("A denied begin returns invalid and its expiration handler runs because of .assertionDenied")
    func deniedCallsHandler() {
        let harness = ManualHarness()
        let called = Recorder<String>()
        harness.system.moveToBackground()
        harness.clock.runPending()  // delegate returns; nothing held: suspended
        #expect(harness.system.lifecycleState == .suspended)
        let id = harness.application.beginBackgroundTask(withName: "Late") { called.append("Late") }
        #expect(id == .invalid)
        #expect(harness.log.effects.contains { if case .assertionDenied(_, "Late", _) = $0 { true } else { false } })
        harness.clock.runPending()
        #expect(called.all == ["Late"])
    }

    @Test(
        "A new incarnation's identifiers go on from the last one's: a stale end ends nothing, a stale handler never runs"
    )
    func incarnations() throws {
        let harness = ManualHarness()
        let called = Recorder<String>()
        let old = harness.application.beginBackgroundTask(withName: "Old") { called.append("Old") }
        #expect(old.rawValue == 1)
        try harness.system.send(.terminate(harness.system.app, .exited(status: 0)))
        try harness.system.send(.launch(harness.system.app, .foreground))
        try harness.system.send(.activate(harness.system.app))
        #expect(harness.log.effects.contains(.launch(harness.system.app, .user, Incarnation(rawValue: 2))))
        let new = harness.application.beginBackgroundTask(withName: "New") { called.append("New") }
        #expect(new.rawValue == 2)
        harness.application.endBackgroundTask(old)  // from the ended process: unknown here
        #expect(harness.system.assertions.map(\.name) == ["New"])
        harness.moveToBackground()
        harness.clock.advance(by: .seconds(30))
        #expect(called.all == ["New"])
    }
}
