import BackgroundCore
import Testing

/// The core's work per event, counted (``BackgroundSystem/appsVisited``), not timed: how many
/// apps an event makes the system look at must not grow with the number of apps installed.
/// Benchmarks measure the time (BENCHMARKS.md, SimulatorBench --growth).
@Suite("Scale: an event's work does not grow with the number of apps installed (issue 8 §7)")
struct ScaleTests {
    /// `count` apps opened at T+0, each with a refresh due at T+100, suspended at T+2. At T+100
    /// four of them run (the system-wide limit) and the others wait for a slot.
    static func waitingForSlots(_ count: Int) throws -> (Driver, [(AppID, TaskRun)]) {
        let apps = (0..<count).map { AppID(stringLiteral: "com.example.app\($0)") }
        var d = try Driver.opened(apps)
        for app in apps {
            try d.submit(app, .refresh(app.refreshID, notBefore: .t(100)), at: .t(1))
            try d.background(app, at: .t(2))
        }
        let started = try d.tick(at: .t(100)).ownedRuns
        return (d, started)
    }

    /// Completes every run, one event each, a second after the one before, and returns the
    /// apps the system visited for each completion.
    static func visitsPerCompletion(apps count: Int) throws -> [Int] {
        var (d, running) = try waitingForSlots(count)
        #expect(running.count == 4)
        var visits: [Int] = []
        var second: Int64 = 101
        while !running.isEmpty {
            let (app, run) = running.removeFirst()
            let before = d.system.appsVisited
            running += try d.complete(app, run.id, at: .t(second)).ownedRuns
            visits.append(d.system.appsVisited - before)
            second += 1
        }
        #expect(visits.count == count, "every app's refresh ran once")
        return visits
    }

    @Test("A completion looks at the app that gets the freed slot, not at every app waiting for one")
    func completionWorkIsConstant() throws {
        let few = try Self.visitsPerCompletion(apps: 10)
        let many = try Self.visitsPerCompletion(apps: 120)
        // With 116 apps waiting, examining every waiter at each completion visited 116 apps
        // and more; now the most visits for one completion is the same for 10 apps and 120.
        #expect(many.max() == few.max())
        #expect(try #require(many.max()) < 20, "visits per completion: \(many)")
    }

    @Test("Turning one app's Background App Refresh switch looks at that app alone")
    func appSwitchLooksAtOneApp() throws {
        for count in [10, 120] {
            let (d0, _) = try Self.waitingForSlots(count)
            var d = d0
            let before = d.system.appsVisited
            try d.send(.setBackgroundRefresh(.appSwitch("com.example.app7", false)), at: .t(101))
            let visited = d.system.appsVisited - before
            #expect(visited < 20, "\(count) apps: \(visited) visited")
            // The device-wide switch does look at every app: each may need telling.
            let beforeSystem = d.system.appsVisited
            try d.send(.setBackgroundRefresh(.systemSwitch(false)), at: .t(102))
            #expect(d.system.appsVisited - beforeSystem >= count)
        }
    }

    @Test("A lifecycle event while another app's deadline is overdue does not copy every app's records")
    func lifecycleEventWithOverdueDeadlineLooksAtFewApps() throws {
        for count in [10, 120] {
            let apps = (0..<count).map { AppID(stringLiteral: "com.example.app\($0)") }
            var d = try Driver.opened(apps)
            // The first app holds an assertion in the background: the watchdog ends it at T+32.
            try d.begin(apps[0], "Save", handler: false, at: .t(1))
            for app in apps { try d.background(app, at: .t(2)) }
            #expect(d.state(apps[0]) == .background)
            #expect(d.state(apps[count - 1]) == .suspended)
            let before = d.system.appsVisited
            try d.send(.enterForeground(apps[count - 1]), at: .t(100))
            let visited = d.system.appsVisited - before
            #expect(d.state(apps[0]) == .terminated(.watchdog(.watchdogTimeout)), "the overdue deadline ran")
            // Copying the state to run the deadlines on would count as visiting every app.
            #expect(visited < 10, "\(count) apps: \(visited) visited")
        }
    }
}

extension Array where Element == Effect {
    /// Every run handed over by `.runTasks` effects, with its app, in order.
    fileprivate var ownedRuns: [(AppID, TaskRun)] {
        flatMap { effect -> [(AppID, TaskRun)] in
            if case .runTasks(let app, let runs) = effect { return runs.map { (app, $0) } }
            return []
        }
    }
}
