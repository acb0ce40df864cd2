import BackgroundCore
import BackgroundProtocol
import BackgroundSimulator
import Testing

/// `bgctl daemon timeline` folds the journal's effects with the simulator's own fold
/// (`AppLanes`), so a state, a termination or the budget is drawn as the simulator draws it.
@Suite("The daemon's timeline: app lanes drawn as the simulator draws them")
struct DaemonTimelineLaneTests {
    static let app: AppID = "com.example.notes"

    static func report(at time: Double) -> TerminationReport {
        TerminationReport(
            incident: 1,
            app: app,
            reason: .watchdog(.watchdogTimeout),
            explanation: "the background budget ran out",
            at: .seconds(time),
            stateBefore: .background,
            permittedBackgroundDuration: .seconds(20),
            leakedAssertions: [],
            policyName: "test"
        )
    }

    @Test(
        "State spans carry the state's name (the renderer's colours), not its description, from launch to termination"
    )
    func stateNames() {
        let entries = [
            JournalEntry(time: 100, effect: .launch(Self.app, .user, Incarnation(rawValue: 1))),
            JournalEntry(time: 100, effect: .stateChanged(Self.app, from: .notRunning, to: .active)),
            JournalEntry(time: 110, effect: .stateChanged(Self.app, from: .active, to: .background)),
            JournalEntry(time: 140, effect: .terminate(Self.app, Self.report(at: 40))),
            JournalEntry(
                time: 140,
                effect: .stateChanged(Self.app, from: .background, to: .terminated(.watchdog(.watchdogTimeout)))
            ),
            JournalEntry(
                time: 150,
                effect: .stateChanged(Self.app, from: .terminated(.watchdog(.watchdogTimeout)), to: .notRunning)
            ),
        ]
        let document = DaemonTimeline.document(from: entries, origin: 100, end: 160, title: "t")
        let lane = document.apps.first { $0.id == Self.app.bundleIdentifier }
        #expect(lane?.states.map { $0.label } == ["notRunning", "active", "background", "terminated", "notRunning"])
        #expect(lane?.markers.map { $0.label } == ["launched (user)", "0x8badf00d"])
    }

    @Test(
        "The foreground's unlimited time is drawn against the daemon's budget from the start, not 30 s until its first reading"
    )
    func budgetLimitFromTheStart() {
        let entries = [
            JournalEntry(time: 100, effect: .stateChanged(Self.app, from: .notRunning, to: .active)),
            JournalEntry(time: 110, effect: .stateChanged(Self.app, from: .active, to: .background)),
            JournalEntry(
                time: 110,
                budget: JournalEntry.BudgetReading(
                    app: Self.app,
                    remainingSeconds: 20,
                    limitSeconds: 20,
                    depleting: true
                )
            ),
        ]
        let document = DaemonTimeline.document(from: entries, origin: 100, end: 120, title: "t")
        let budget = document.apps.first?.budget ?? []
        #expect(budget.count == 2)
        #expect(budget.allSatisfy { $0.limitSeconds == 20 }, "\(budget.map(\.limitSeconds))")
    }
}
