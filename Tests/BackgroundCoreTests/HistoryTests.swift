import BackgroundCore
import Testing

/// `why` with history: runs recorded per request identifier, the device's condition intervals
/// recorded once (not per request), waits derived when asked, what-ifs computed on a copy of
/// the system, and the likely range (the project's own estimate).
@Suite("Eligibility history, what-ifs and the likely range")
struct HistoryTests {
    static let sixHours: Int64 = 6 * 3600

    /// Notes opened at T+0 and left; a clean-up that needs power submitted at T+60; the device
    /// idle on battery from T+120; plugged in 6 h after the submission.
    static func cleanupOnPower() throws -> (Driver, TaskRunID) {
        var d = try Driver.opened()
        try d.submit(notes, .processing(notes.processingID(), power: true), at: .t(60))
        try d.background(notes, at: .t(60))
        try d.device(.idleOnBattery, at: .t(120))
        let effects = try d.device(.idleCharging, at: .t(60 + sixHours))
        let run = try #require(effects.taskRuns.first)
        try d.complete(notes, run.id, at: .t(60 + sixHours + 240))
        return (d, run.id)
    }

    @Test("a request that needed external power waited 6 h for it: derived from the device's intervals")
    func waitedSixHoursForPower() throws {
        let (d, _) = try Self.cleanupOnPower()
        let history = d.system.history(of: notes, identifier: notes.processingID(), at: .t(60 + Self.sixHours + 300))
        let run = try #require(history.runs.last)
        #expect(history.runs.count == 1)
        #expect(run.waited(for: .externalPower) == .seconds(Self.sixHours))
        #expect(run.waited(for: .deviceIdle) == .seconds(60), "in use from the submission at T+60 until T+120")
        #expect(run.waits.map(\.reason) == [.externalPower, .deviceIdle], "longest first")
        #expect(run.outcome == .succeeded)
        #expect(run.duration == .seconds(240))
        #expect(run.waited == .seconds(Self.sixHours))
        #expect(history.pendingSince == nil)
    }

    @Test("the device's intervals are recorded once per change, whatever the number of pending requests")
    func intervalsRecordedOnce() throws {
        func intervals(pending: Int) throws -> (kept: Int, persisted: Int) {
            var d = try Driver.opened()
            for number in 0..<pending {
                try d.submit(notes, .processing(notes.processingID(number), power: true), at: .t(1))
            }
            try d.background(notes, at: .t(1))
            let battery = DeviceConditions(network: .none, isIdle: true)
            for step in 0..<6 {
                try d.device(step % 2 == 0 ? battery : .idleOnBattery, at: .t(Int64(10 + step)))
            }
            let persisted = d.persisted.filter {
                if case .recordDeviceInterval = $0 { true } else { false }
            }
            return (d.system.decisionHistory.device.count, persisted.count)
        }
        let one = try intervals(pending: 1)
        let ten = try intervals(pending: 10)
        #expect(one.kept == ten.kept)
        #expect(one.persisted == ten.persisted)
        // The start (in use), idle without network, then idle with Wi-Fi and back, six changes in all.
        #expect(one.kept == 7)
    }

    @Test("history is bounded: the oldest intervals and runs are dropped")
    func bounded() throws {
        var policy = SystemPolicy.iOS
        policy.scheduling.historyDeviceIntervals = 4
        var d = Driver(policy: policy)
        for step in 0..<10 {
            try d.device(step % 2 == 0 ? .idleOnBattery : DeviceConditions(), at: .t(Int64(step + 1)))
        }
        #expect(d.system.decisionHistory.device.map(\.from) == [.t(7), .t(8), .t(9), .t(10)])
    }

    @Test("a waiting request's waits so far, per condition, from its submission to now")
    func pendingWaits() throws {
        var d = try Driver.opened()
        try d.submit(notes, .processing(notes.processingID(), power: true, network: true), at: .t(0))
        try d.background(notes, at: .t(0))
        try d.device(DeviceConditions(network: .none, isIdle: true), at: .t(600))
        try d.device(.idleOnBattery, at: .t(1800))
        let history = d.system.history(of: notes, identifier: notes.processingID(), at: .t(3600))
        #expect(history.pendingSince == .t(0))
        #expect(history.waiting(for: .externalPower) == .seconds(3600))
        #expect(history.waiting(for: .network) == .seconds(1200))
        #expect(history.waiting(for: .deviceIdle) == .seconds(600))
        #expect(history.runs.isEmpty)
    }

    @Test("what-ifs come from the core on copies: power alone, idle alone, and both together")
    func whatIfs() throws {
        var d = try Driver.opened()
        try d.submit(notes, .processing(notes.processingID(), power: true), at: .t(0))
        try d.background(notes, at: .t(0))
        let before = (
            d.system.currentDevice, d.system.eligibility(of: notes, identifier: notes.processingID(), at: .t(60))
        )
        let whatIfs = d.system.whatIfs(of: notes, identifier: notes.processingID(), at: .t(60))
        #expect(whatIfs.map(\.changes) == [[.plugIn], [.leaveDeviceIdle], [.plugIn, .leaveDeviceIdle]])
        #expect(whatIfs[0].eligibility.unmet == [.deviceInUse])
        #expect(whatIfs[0].runsAt == nil)
        #expect(whatIfs[1].eligibility.unmet == [.requiresExternalPower])
        #expect(whatIfs[2].eligibility.isEligible)
        #expect(whatIfs[2].runsAt == .t(60))
        #expect(d.system.currentDevice == before.0, "asking changes nothing")
        #expect(d.system.eligibility(of: notes, identifier: notes.processingID(), at: .t(60)) == before.1)
        // The answer is the core's: the combination really runs it at once.
        let effects = try d.device(.idleCharging, at: .t(60))
        #expect(effects.taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    @Test("a what-if says since when the condition it ends has held: no network since T+600, on battery since T+0")
    func whatIfSince() throws {
        var d = try Driver.opened()
        try d.submit(notes, .processing(notes.processingID(), power: true, network: true), at: .t(0))
        try d.background(notes, at: .t(0))
        try d.device(DeviceConditions(network: .wifi, isIdle: true), at: .t(300))
        try d.device(DeviceConditions(network: .none, isIdle: true), at: .t(600))
        let whatIfs = d.system.whatIfs(of: notes, identifier: notes.processingID(), at: .t(3600))
        #expect(whatIfs.map(\.changes) == [[.plugIn], [.connectToNetwork], [.plugIn, .connectToNetwork]])
        #expect(whatIfs[0].heldBack == ConditionHeld(reason: .externalPower, since: .t(0)))
        #expect(whatIfs[1].heldBack == ConditionHeld(reason: .network, since: .t(600)), "Wi-Fi until T+600")
        #expect(whatIfs[2].heldBack == nil, "a combination has no single condition")
        let text = try #require(d.system.explanation(of: notes, identifier: notes.processingID(), at: .t(3600)))
            .renderText()
        let line = try #require(text.split(separator: "\n").first { $0.contains("if connected to a network:") })
        #expect(line.hasSuffix("(waiting for a network since T+600.000s)"), "\(text)")
    }

    @Test("a what-if that leaves a timed condition says when: plugged in, it runs when the rate limit clears")
    func whatIfWithTime() throws {
        let (done, _) = try Self.cleanupOnPower()
        var d = done
        let started = 60 + Self.sixHours
        try d.device(.idleOnBattery, at: .t(started + 300))
        try d.submit(notes, .processing(notes.processingID(1), power: true), at: .t(started + 300))
        let whatIfs = d.system.whatIfs(of: notes, identifier: notes.processingID(1), at: .t(started + 300))
        #expect(whatIfs.map(\.changes) == [[.plugIn]])
        #expect(whatIfs.first?.runsAt == .t(started + 900), "15 min after the last background run")
    }

    @Test("the likely range: from the earliest run to the predictor's window and the launch spacing")
    func likelyRange() throws {
        var d = try Driver.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(3600)), at: .t(0))
        let range = try #require(d.system.likelyRange(of: notes, identifier: notes.refreshID, at: .t(0)))
        #expect(range.isEstimate)
        #expect(range.earliest == .t(3600))
        // One launch is too few for predictions: any time counts, so the window is the hour from 3600.
        #expect(range.latest == .t(3600 + 3600 + 900))
        try d.submit(notes, .processing(notes.processingID(), power: true), at: .t(0))
        let waiting = try #require(d.system.likelyRange(of: notes, identifier: notes.processingID(), at: .t(0)))
        #expect(waiting.latest == nil, "it waits on the device: no estimate of when the user plugs in")
        #expect(waiting.basis.first?.contains("external power") == true)
    }

    @Test("the explanation names every identifier pending or run, sorted, and renders its parts")
    func explanation() throws {
        let (d, _) = try Self.cleanupOnPower()
        #expect(d.system.explainedIdentifiers(of: notes) == [notes.processingID()])
        let explanation = try #require(
            d.system.explanation(of: notes, identifier: notes.processingID(), at: .t(30_000))
        )
        #expect(explanation.eligibility == nil)
        let text = explanation.renderText()
        #expect(text.contains("waited for external power 6h, the device to be idle 1m"))
        #expect(d.system.explanation(of: notes, identifier: "unknown", at: .t(30_000)) == nil)
    }
}
