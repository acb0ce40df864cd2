import BackgroundCore
import Testing

@Suite("BGTask runs: expiration, completion and the watchdog (R2.13–R2.15, §2.7–§2.9)")
struct TaskRunTests {
    /// Notes opened at T+0 with `requests` submitted at T+1, suspended from T+2, the device
    /// idle and charging; the tasks due at T+60 are handed over then. Returns those runs.
    static func start(_ requests: [TaskRequest], in d: inout Driver) throws -> [TaskRun] {
        d = try Driver.opened()
        try d.device(.idleCharging, at: .zero)
        for request in requests { try d.submit(notes, request, at: .t(1)) }
        try d.background(notes, at: .t(2))
        return try d.tick(at: .t(60)).taskRuns
    }

    /// Notes opened at T+0 and active, with a continued-processing task submitted at T+10; returns its run.
    static func startContinued(in d: inout Driver) throws -> TaskRun {
        d = try Driver.opened()
        let identifier = notes.continuedID("A")
        try d.send(.registerTaskHandler(notes, identifier: identifier), at: .t(10))
        return try #require(try d.submit(notes, .continued(identifier), at: .t(10)).taskRuns.first)
    }

    // MARK: Expiration and the watchdog

    @Test(
        "The expiration handler is called 5 s before the run's time is up (refresh: at 25 s; processing: at 595 s)",
        arguments: [(TaskKind.appRefresh, Int64(25)), (.processing, 595)]
    )
    func expirationLeadTime(kind: TaskKind, expiresAfter: Int64) throws {
        let request =
            kind == .appRefresh
            ? TaskRequest.refresh(notes.refreshID, notBefore: .t(60))
            : .processing(notes.processingID(), notBefore: .t(60))
        var d = Driver()
        let runs = try Self.start([request], in: &d)
        let run = try #require(runs.first)
        #expect(run.expiresAt == .t(60 + expiresAfter))
        #expect(run.killAt == .t(60 + expiresAfter + 5))
        #expect(d.system.nextDeadline == .t(60 + expiresAfter))
        #expect(try d.tick(at: .t(60 + expiresAfter - 1)).expiredRuns.isEmpty)
        let expired = try d.tick(at: .t(60 + expiresAfter))
        #expect(expired.withoutBookkeeping == [.expireTask(notes, run.id)])
    }

    @Test("A refresh not completed within 30 s ends the app with 0x8badf00d, the report naming the task")
    func uncompletedIsKilled() throws {
        var d = Driver()
        let runs = try Self.start([.refresh(notes.refreshID, notBefore: .t(60))], in: &d)
        let run = try #require(runs.first)
        try d.tick(at: .t(85))
        #expect(try d.tick(at: .t(89, 999)).reports.isEmpty)
        let killed = try d.tick(at: .t(90))
        let report = try #require(killed.reports.first)
        #expect(report.code == .watchdogTimeout)
        #expect(report.at == .t(90))
        #expect(report.uncompletedTasks.map(\.identifier) == [notes.refreshID])
        #expect(report.uncompletedTasks.map(\.run) == [run.id])
        #expect(report.uncompletedTasks.map(\.kind) == [.appRefresh])
        #expect(report.uncompletedTasks.map(\.startedAt) == [.t(60)])
        #expect(d.state(notes) == .terminated(.watchdog(.watchdogTimeout)))
        #expect(d.system.runningTasks(of: notes).isEmpty)
    }

    @Test("Completing the task in time finishes it (succeeded) and suspends the app when nothing else holds it")
    func completionSuspends() throws {
        var d = Driver()
        let runs = try Self.start([.refresh(notes.refreshID, notBefore: .t(60))], in: &d)
        let run = try #require(runs.first)
        let effects = try d.complete(notes, run.id, at: .t(70))
        #expect(
            effects.withoutBookkeeping == [
                .taskFinished(notes, run.id, .succeeded), .stateChanged(notes, from: .background, to: .suspended),
                .suspend(notes),
            ]
        )
        #expect(try d.tick(at: .t(200)).reports.isEmpty)
    }

    @Test(
        "An assertion begun during a processing task does not end the app before the task's own time (fuzzer seed 292)"
    )
    func taskRuntimeGovernsAssertions() throws {
        var d = Driver()
        let runs = try Self.start([.processing(notes.processingID(), notBefore: .t(60))], in: &d)
        let run = try #require(runs.first)
        guard case .granted(let id) = try d.begin(notes, "Upload", at: .t(61)).reply else {
            Issue.record("not granted")
            return
        }
        // The 30 s budget would have ended at T+91: the running task holds the process instead.
        #expect(try d.tick(at: .t(300)).reports.isEmpty)
        #expect(d.state(notes) == .background)
        // Once the task completes, the assertion gets the budget's clock back: expiration, then the watchdog.
        try d.complete(notes, run.id, at: .t(300))
        let expiring = try d.tick(at: .t(325))
        #expect(expiring.contains(.runExpirationHandler(notes, id)))
        let report = try #require(try d.tick(at: .t(400)).reports.first)
        #expect(report.leakedAssertions.map(\.name) == ["Upload"])
        #expect(report.at == .t(326))  // the handler, called at T+325, never returned: 1 s later
    }

    @Test(
        "A refresh resubmitted from its own completion, while the batch still runs, waits for the rate limit (fuzzer seed 27063)"
    )
    func resubmissionInsideABatchIsRateLimited() throws {
        var d = Driver()
        let runs = try Self.start(
            [.refresh(notes.refreshID, notBefore: .t(60)), .processing(notes.processingID(), notBefore: .t(60))],
            in: &d
        )
        let refresh = try #require(runs.first { $0.request.kind == .appRefresh })
        try d.complete(notes, refresh.id, at: .t(60))
        // The processing task keeps the batch open; the refresh must not run again at once
        // (before the fix it did, for ever, at the same instant).
        #expect(try d.submit(notes, .refresh(notes.refreshID), at: .t(60)).taskRuns.isEmpty)
        let why = try #require(d.why(notes, notes.refreshID, at: .t(60)))
        #expect(why.unmet.contains(.rateLimited(until: .t(60 + 900))))
    }

    @Test("setTaskCompleted(success: false) finishes the run as failed")
    func completionFailed() throws {
        var d = Driver()
        let runs = try Self.start([.refresh(notes.refreshID, notBefore: .t(60))], in: &d)
        let run = try #require(runs.first)
        #expect(
            try d.complete(notes, run.id, success: false, at: .t(70)).first == .taskFinished(notes, run.id, .failed)
        )
    }

    @Test("The app stays in the background while another task of its batch is still running")
    func otherTaskHoldsTheApp() throws {
        var d = Driver()
        let runs = try Self.start(
            [
                .refresh(notes.refreshID, notBefore: .t(60)), .processing(notes.processingID(), notBefore: .t(60)),
            ],
            in: &d
        )
        #expect(runs.count == 2)
        try d.complete(notes, runs[0].id, at: .t(70))
        #expect(d.state(notes) == .background)
        let last = try d.complete(notes, runs[1].id, at: .t(80))
        #expect(last.contains(.suspend(notes)))
    }

    @Test("A second setTaskCompleted for the same run is ignored, with a log")
    func secondCompletionIgnored() throws {
        var d = Driver()
        let runs = try Self.start([.refresh(notes.refreshID, notBefore: .t(60))], in: &d)
        let run = try #require(runs.first)
        try d.complete(notes, run.id, at: .t(70))
        let again = try d.complete(notes, run.id, success: false, at: .t(71))
        #expect(again.withoutBookkeeping.isEmpty)
        #expect(again.logs.count == 1)
        #expect(again.logs.first?.message.contains("ignored") == true)
        #expect(d.state(notes) == .suspended)
    }

    // MARK: Device use (S13)

    @Test("A running processing task is expired when the device stops being idle; a refresh task is not")
    func deviceUseExpiresProcessing() throws {
        var d = Driver()
        let runs = try Self.start(
            [
                .refresh(notes.refreshID, notBefore: .t(60)), .processing(notes.processingID(), notBefore: .t(60)),
            ],
            in: &d
        )
        let processing = try #require(runs.first { $0.request.kind == .processing })
        let inUse = try d.device(DeviceConditions(powerSource: .externalPower), at: .t(70))
        #expect(inUse.expiredRuns == [processing.id])
        #expect(inUse.withoutBookkeeping == [.expireTask(notes, processing.id)])
    }

    @Test("A device change that keeps it idle does not expire a processing task")
    func idleChangeKeepsProcessing() throws {
        var d = Driver()
        let runs = try Self.start([.processing(notes.processingID(), notBefore: .t(60))], in: &d)
        #expect(runs.count == 1)
        let unplugged = try d.device(.idleOnBattery, at: .t(70))
        #expect(unplugged.expiredRuns.isEmpty)
    }

    // MARK: Continued processing (§2.8)

    @Test("A continued-processing task whose progress does not move for 60 s is expired")
    func continuedStalls() throws {
        var d = Driver()
        let run = try Self.startContinued(in: &d)
        #expect(run.expiresAt == nil)
        #expect(try d.tick(at: .t(69, 999)).expiredRuns.isEmpty)
        #expect(try d.tick(at: .t(70)).expiredRuns == [run.id])
    }

    @Test("Progress that keeps moving keeps a continued-processing task alive; it expires 60 s after the last move")
    func continuedProgressKeepsAlive() throws {
        var d = Driver()
        let run = try Self.startContinued(in: &d)
        try d.send(.reportTaskProgress(notes, run.id, fraction: 0.1), at: .t(50))
        #expect(try d.tick(at: .t(70)).expiredRuns.isEmpty)
        try d.send(.reportTaskProgress(notes, run.id, fraction: 0.2), at: .t(100))
        #expect(try d.tick(at: .t(110)).expiredRuns.isEmpty)
        // Progress that does not move is no progress.
        try d.send(.reportTaskProgress(notes, run.id, fraction: 0.2), at: .t(150))
        #expect(try d.tick(at: .t(159)).expiredRuns.isEmpty)
        #expect(try d.tick(at: .t(160)).expiredRuns == [run.id])
    }

    @Test("The user stopping a continued-processing task expires it at once")
    func continuedUserCancel() throws {
        var d = Driver()
        let run = try Self.startContinued(in: &d)
        let cancelled = try d.send(.userCancelledTask(notes, run.id), at: .t(20))
        #expect(cancelled.withoutBookkeeping == [.expireTask(notes, run.id)])
    }

    // MARK: Debugger hooks (§2.9)

    @Test("simulateLaunch runs a pending request at once, whatever the conditions, and logs Apple's line")
    func simulateLaunch() throws {
        var d = try Driver.opened()
        let request = TaskRequest.processing(notes.processingID(), notBefore: .t(86_400), power: true, network: true)
        try d.submit(notes, request, at: .t(1))
        try d.background(notes, at: .t(2))
        try d.device(DeviceConditions(network: .none, unlockedSinceBoot: true), at: .t(3))
        let effects = try d.send(.simulateLaunch(notes, identifier: notes.processingID()), at: .t(10))
        #expect(
            effects.logs.map(\.message).contains("Simulating launch for task with identifier \(notes.processingID())")
        )
        #expect(effects.taskRuns.map(\.request.identifier) == [notes.processingID()])
        #expect(effects.taskRuns.map(\.startedAt) == [.t(10)])
        #expect(d.pendingIDs(notes).isEmpty)
    }

    @Test("simulateLaunch of an identifier with no pending request runs nothing and logs an error")
    func simulateLaunchUnknown() throws {
        var d = try Driver.opened()
        let effects = try d.send(.simulateLaunch(notes, identifier: notes.refreshID), at: .t(10))
        #expect(effects.withoutLogs.isEmpty)
        #expect(effects.logs.map(\.level) == [.error])
    }

    @Test("simulateExpiration expires a running task at once")
    func simulateExpiration() throws {
        var d = Driver()
        let runs = try Self.start([.refresh(notes.refreshID, notBefore: .t(60))], in: &d)
        let run = try #require(runs.first)
        let effects = try d.send(.simulateExpiration(notes, identifier: notes.refreshID), at: .t(62))
        #expect(effects.withoutBookkeeping == [.expireTask(notes, run.id)])
        #expect(
            effects.logs.map(\.message).contains("Simulating expiration for task with identifier \(notes.refreshID)")
        )
    }
}
