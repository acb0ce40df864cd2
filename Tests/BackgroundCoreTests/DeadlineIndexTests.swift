import Testing

@testable import BackgroundCore

/// The deadline index (issue 8 §7): finding the next deadline looks at the apps whose records
/// changed, not at every app that can have one. Counted (``BackgroundSystem/appsVisited`` and
/// the index's heap operations), never timed; a return to a scan makes the counts grow with
/// the number of apps. And the debug check after an event looks at what the event changed,
/// with a periodic full check that still catches what lives outside the records.
@Suite("The deadline index: an event's deadline search does not grow with the apps in the background")
struct DeadlineIndexTests {
    /// `count` apps, each opened, holding an assertion, then sent to the background one second
    /// apart: every one has a deadline (its budget), none due before T+`count`+20.
    static func backgroundHolders(_ count: Int) throws -> (Driver, [AppID]) {
        let apps = (0..<count).map { AppID(stringLiteral: "com.example.app\($0)") }
        var d = try Driver.opened(apps)
        for app in apps { try d.begin(app, "Sync", at: .t(1)) }
        for (offset, app) in apps.enumerated() {
            try d.leave(app, at: .milliseconds(2000 + Int64(offset)))
            try d.send(.didEnterBackgroundReturned(app), at: .milliseconds(2000 + Int64(offset)))
        }
        #expect(apps.allSatisfy { d.state($0) == .background })
        return (d, apps)
    }

    /// What one event costs the deadline search: apps visited and heap operations.
    static func cost(
        of event: Event,
        at instant: Instant,
        in driver: inout Driver
    ) throws -> (visits: Int, heap: Int) {
        let visits = driver.system.appsVisited
        let heap = driver.system.deadlineIndex.operations
        try driver.send(event, at: instant)
        return (driver.system.appsVisited - visits, driver.system.deadlineIndex.operations - heap)
    }

    @Test("An event of one app visits the same few apps with 10 or 1,000 apps in the background")
    func eventCostIsFlat() throws {
        var costs: [(visits: Int, heap: Int)] = []
        for count in [10, 1000] {
            var (d, apps) = try Self.backgroundHolders(count)
            // A second assertion of the last app, then its end: full-path events (the app is in
            // the background), each of which searches the deadlines.
            let begin = try Self.cost(
                of: .beginAssertion(apps[count - 1], name: "More", origin: CallSite(), hasExpirationHandler: true),
                at: .t(5),
                in: &d
            )
            guard case .granted(let id) = d.lastReply else {
                Issue.record("the begin was not granted: \(String(describing: d.lastReply))")
                return
            }
            let end = try Self.cost(of: .endAssertion(apps[count - 1], id), at: .t(6), in: &d)
            costs.append((begin.visits + end.visits, begin.heap + end.heap))
            #expect(d.system.checkInvariants() == [])
        }
        #expect(costs[0].visits == costs[1].visits, "visits per event: \(costs)")
        #expect(costs[1].visits <= 8, "a scan would visit every app in the background: \(costs)")
        #expect(costs[0].heap == costs[1].heap, "heap operations per event: \(costs)")
    }

    @Test("Deadlines firing one after another each cost the same few visits with 10 or 400 apps")
    func firingCostIsFlat() throws {
        var perDeadline: [Double] = []
        for count in [10, 400] {
            var (d, apps) = try Self.backgroundHolders(count)
            // Each app's expiration starts 5 s before its budget ends; its handler is then
            // called. Tick through them: one expiration start per app.
            let visits = d.system.appsVisited
            try d.tick(at: .t(40))
            let fired = d.timeline.filter {
                if case .runExpirationHandler = $0.effect { true } else { false }
            }
            #expect(fired.count == apps.count, "every app's handler was called")
            perDeadline.append(Double(d.system.appsVisited - visits) / Double(count))
            #expect(d.system.checkInvariants() == [])
        }
        #expect(perDeadline[1] <= perDeadline[0] * 1.2 + 0.5, "visits per fired deadline: \(perDeadline)")
        #expect(perDeadline[1] < 6, "a scan would visit every app per deadline: \(perDeadline)")
    }

    @Test("Ties order by the app's record index, whatever order the deadlines were set in")
    func tiesOrderByApp() {
        var index = DeadlineIndex()
        index.set(.t(10), forAppAt: 3)
        index.set(.t(10), forAppAt: 1)
        index.set(.t(12), forAppAt: 0)
        index.set(.t(10), forAppAt: 2)
        index.set(nil, forAppAt: 1)
        #expect(index.earliest() == DeadlineIndex.Entry(at: .t(10), app: 2))
        index.set(.t(9), forAppAt: 3)
        #expect(index.earliest() == DeadlineIndex.Entry(at: .t(9), app: 3))
        index.set(.t(11), forAppAt: 3)
        index.set(.t(11), forAppAt: 2)
        #expect(index.earliest() == DeadlineIndex.Entry(at: .t(11), app: 2), "stale entries are dropped")
    }

    @Test("Replaced entries never pile up: the heap is rebuilt from the live ones")
    func staleEntriesAreBounded() {
        var index = DeadlineIndex()
        for step in 0..<10_000 {
            index.set(.milliseconds(Int64(100_000 - step)), forAppAt: step % 3)
        }
        #expect(index.earliest()?.at == .milliseconds(Int64(100_000 - 9_999)))
        #expect(index.heapCount <= 2 * 3 + 64)
    }
}

@Suite("The debug check after an event looks at what it changed, and still catches violations")
struct ChangedInvariantTests {
    @Test("A record broken through the table is caught by the check after the next event")
    func brokenRecordIsCaught() throws {
        var (d, apps) = try DeadlineIndexTests.backgroundHolders(5)
        // A foreground app's budget may not tick: break one app's record.
        try d.send(.enterForeground(apps[2]), at: .t(3))
        var system = d.system
        _ = system.apps.takeChangedForInvariants()  // as the check after that event did
        let index = try #require(system.appIndex[apps[2]])
        system.apps[index].budget.startTicking(at: .t(3))
        let changed = system.apps.takeChangedForInvariants()
        #expect(changed == [index], "the write went through the table, which noted it")
        let found = system.checkInvariants(ofAppsAt: changed)
        #expect(found.contains { $0.contains("foreground app's budget is ticking") }, "\(found)")
        #expect(system.checkInvariants().contains { $0.contains("foreground app's budget is ticking") })
    }

    @Test("The check after an event covers only the changed apps, and every app at the full-check interval")
    func fullCheckAtTheInterval() throws {
        let (d, _) = try DeadlineIndexTests.backgroundHolders(5)
        var system = d.system
        _ = system.checkInvariantsAfterEvent()
        // State outside the records (a set the records do not write): only the full check
        // can see it go stale.
        system.busyApps.insert(0)
        var seen: [[String]] = []
        for _ in 0..<BackgroundSystem.fullCheckInterval {
            seen.append(system.checkInvariantsAfterEvent())
            if system.eventsChecked % BackgroundSystem.fullCheckInterval == 0 { break }
        }
        #expect(seen.dropLast().allSatisfy { $0.isEmpty }, "no app changed: nothing to check")
        #expect(seen.last?.contains("the set of apps running tasks is stale") == true, "\(seen.last ?? [])")
    }

    @Test("A stale deadline index is caught by the full check")
    func staleIndexIsCaught() throws {
        var (d, apps) = try DeadlineIndexTests.backgroundHolders(3)
        try d.tick(at: .t(4))
        var system = d.system
        #expect(system.checkInvariants() == [])
        system.deadlineIndex.set(.t(1000), forAppAt: 1)
        let found = system.checkInvariants()
        #expect(found.contains("\(apps[1]): the deadline index is stale"), "\(found)")
    }
}
