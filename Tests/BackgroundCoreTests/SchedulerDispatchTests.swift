import BackgroundCore
import Testing

@Suite("BGTaskScheduler dispatch: when a pending task is handed to its app (R2.7, R2.10–R2.12, R2.16, §3)")
struct SchedulerDispatchTests {
    /// Notes opened at T+0 (handlers registered), `request` submitted at T+1, then in the
    /// background from T+2 (suspended).
    static func suspended(
        with requests: [TaskRequest],
        device: DeviceConditions = DeviceConditions()
    ) throws
        -> Driver
    {
        var d = try Driver.opened()
        try d.device(device, at: .zero)
        for request in requests { try d.submit(notes, request, at: .t(1)) }
        try d.background(notes, at: .t(2))
        return d
    }

    // MARK: earliestBeginDate (R2.7)

    @Test("A refresh is never delivered before its earliestBeginDate, and is delivered when it comes")
    func notBeforeEarliestBegin() throws {
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))])
        #expect(d.system.nextDeadline == .t(60))
        #expect(try d.tick(at: .t(30)).taskRuns.isEmpty)
        #expect(try d.tick(at: .t(59, 999)).taskRuns.isEmpty)
        let runs = try d.tick(at: .t(60)).taskRuns
        #expect(runs.map(\.request.identifier) == [notes.refreshID])
        #expect(runs.map(\.startedAt) == [.t(60)])
    }

    @Test("A due refresh is handed to a running, launched app as .runTasks with exactly that request")
    func deliveredToRunningApp() throws {
        var d = try Driver.opened()
        let accepted = try #require(
            try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1)).acceptedRequests.first
        )
        let effects = try d.tick(at: .t(60))
        let run = try #require(effects.taskRuns.first)
        #expect(effects.withoutBookkeeping == [.runTasks(notes, [run])])
        #expect(run.request == accepted)
        #expect(run.startedAt == .t(60))
        #expect(d.state(notes) == .active)
    }

    // MARK: Launching and resuming for tasks

    @Test("An app that is not running is launched in the background; its tasks come after its launch code returns")
    func launchedForTask() throws {
        let request = TaskRequest.refresh(notes.refreshID, notBefore: .t(60))
        var d = try Driver.restored([request])
        let due = try d.tick(at: .t(60))
        #expect(
            due.withoutBookkeeping == [
                .launch(notes, .tasks, .first), .stateChanged(notes, from: .notRunning, to: .background),
                .deliverBackgroundWake(notes),
            ]
        )
        // During the wake the app registers its handlers: nothing is handed over yet.
        #expect(try d.register(notes, notes.listedTaskIDs, at: .t(61)).taskRuns.isEmpty)
        let returned = try d.send(.backgroundWakeReturned(notes), at: .t(62))
        #expect(returned.taskRuns.map(\.request) == [request])
        #expect(returned.taskRuns.map(\.startedAt) == [.t(62)])
        #expect(d.state(notes) == .background)
    }

    @Test("An app opened by the user while it launches in the background for tasks gets them when its launch finishes")
    func openedDuringBackgroundLaunch() throws {
        let request = TaskRequest.refresh(notes.refreshID, notBefore: .t(60))
        var d = try Driver.restored([request])
        #expect(try d.tick(at: .t(60)).contains(.deliverBackgroundWake(notes)))
        try d.register(notes, notes.listedTaskIDs, at: .t(61))
        // The user taps the app's icon before its launch code has returned.
        try d.send(.enterForeground(notes), at: .t(62))
        #expect(d.system.checkInvariants() == [])
        try d.send(.activate(notes), at: .t(62))
        let finished = try d.send(.finishLaunching(notes), at: .t(63))
        #expect(finished.taskRuns.map(\.request) == [request])
    }

    @Test("A suspended app is resumed in the background and given its task")
    func suspendedIsResumed() throws {
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))])
        #expect(d.state(notes) == .suspended)
        let effects = try d.tick(at: .t(60))
        let run = try #require(effects.taskRuns.first)
        #expect(
            effects.withoutBookkeeping == [
                .resume(notes, .first), .stateChanged(notes, from: .suspended, to: .background),
                .runTasks(notes, [run]),
            ]
        )
        #expect(d.state(notes) == .background)
    }

    // MARK: Processing (S13, R2.10, R2.11)

    @Test("A processing task runs only while the device is idle")
    func processingNeedsIdle() throws {
        var d = try Self.suspended(with: [.processing(notes.processingID(), notBefore: .t(60))])
        #expect(try d.tick(at: .t(600)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.processingID(), at: .t(600))?.unmet == [.deviceInUse])
        let idle = try d.device(.idleOnBattery, at: .t(700))
        #expect(idle.taskRuns.map(\.request.identifier) == [notes.processingID()])
        #expect(idle.taskRuns.map(\.startedAt) == [.t(700)])
    }

    @Test("A processing task with requiresExternalPower runs only on external power")
    func processingNeedsPower() throws {
        var d = try Self.suspended(
            with: [.processing(notes.processingID(), notBefore: .t(60), power: true)],
            device: .idleOnBattery
        )
        #expect(try d.tick(at: .t(600)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.processingID(), at: .t(600))?.unmet == [.requiresExternalPower])
        let plugged = try d.device(.idleCharging, at: .t(700))
        #expect(plugged.taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    @Test("A processing task with requiresNetworkConnectivity runs only with a network connection")
    func processingNeedsNetwork() throws {
        let offline = DeviceConditions(powerSource: .externalPower, network: .none, isIdle: true)
        var d = try Self.suspended(
            with: [.processing(notes.processingID(), notBefore: .t(60), network: true)],
            device: offline
        )
        #expect(try d.tick(at: .t(600)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.processingID(), at: .t(600))?.unmet == [.requiresNetwork])
        var cellular = offline
        cellular.network = .cellular
        let online = try d.device(cellular, at: .t(700))
        #expect(online.taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    @Test("A processing task without requiresNetworkConnectivity runs with no network")
    func processingWithoutNetworkRequirement() throws {
        let offline = DeviceConditions(powerSource: .externalPower, network: .none, isIdle: true)
        var d = try Self.suspended(with: [.processing(notes.processingID(), notBefore: .t(60))], device: offline)
        #expect(try d.tick(at: .t(60)).taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    // MARK: Batches (R2.16)

    @Test("Several due tasks of one app are handed over in one .runTasks batch")
    func oneBatch() throws {
        var d = try Self.suspended(
            with: [
                .refresh(notes.refreshID, notBefore: .t(60)), .processing(notes.processingID(0), notBefore: .t(60)),
                .processing(notes.processingID(1), notBefore: .t(50)),
            ],
            device: .idleCharging
        )
        let effects = try d.tick(at: .t(60))
        #expect(effects.taskBatches.count == 1)
        #expect(
            Set(effects.taskRuns.map(\.request.identifier))
                == [notes.refreshID, notes.processingID(0), notes.processingID(1)]
        )
        #expect(d.pendingIDs(notes).isEmpty)
    }

    // MARK: Force quit (§3.3)

    @Test("A force-quit app gets no tasks until the user opens it again")
    func forceQuitBlocks() throws {
        var d = try Driver.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        try d.send(.terminate(notes, .userForceQuit), at: .t(10))
        let due = try d.tick(at: .t(60))
        #expect(due.withoutBookkeeping.isEmpty)
        #expect(try d.tick(at: .t(86_400)).withoutBookkeeping.isEmpty)
        #expect(d.why(notes, notes.refreshID, at: .t(86_400))?.unmet.contains(.forceQuit) == true)
        #expect(throws: BackgroundSystemError.self) { try d.send(.launch(notes, .background), at: .t(86_401)) }

        // The user opens it: the task is handed over once the new process has finished launching.
        let opened = try d.openRegistered(notes, at: .t(90_000))
        #expect(opened.taskRuns.map(\.request.identifier) == [notes.refreshID])
        #expect(opened.taskRuns.map(\.startedAt) == [.t(90_000)])
    }

    // MARK: Battery and Low Power Mode (§3.1 factors 1, 2)

    @Test("Low Power Mode (reported by the device) blocks refresh tasks; they run once it is off")
    func lowPowerModeBlocksRefresh() throws {
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))])
        try d.device(DeviceConditions(lowPowerMode: true), at: .t(3))
        #expect(try d.tick(at: .t(600)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.refreshID, at: .t(600))?.unmet == [.lowPowerMode])
        #expect(try d.device(DeviceConditions(), at: .t(700)).taskRuns.map(\.startedAt) == [.t(700)])
    }

    @Test("Low Power Mode set through Background App Refresh settings also blocks refresh tasks")
    func lowPowerModeSettingBlocksRefresh() throws {
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))])
        try d.send(.setBackgroundRefresh(.lowPowerMode(true)), at: .t(3))
        #expect(try d.tick(at: .t(600)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.refreshID, at: .t(600))?.unmet == [.lowPowerMode])
        let off = try d.send(.setBackgroundRefresh(.lowPowerMode(false)), at: .t(700))
        #expect(off.taskRuns.map(\.startedAt) == [.t(700)])
    }

    @Test("A critically low battery (≤ 20 % on battery) blocks refresh tasks")
    func criticalBatteryBlocksRefresh() throws {
        let critical = DeviceConditions(batteryLevel: 0.2)
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))], device: critical)
        #expect(try d.tick(at: .t(600)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.refreshID, at: .t(600))?.unmet == [.batteryCriticallyLow(level: 0.2)])
        let charged = try d.device(DeviceConditions(batteryLevel: 0.21), at: .t(700))
        #expect(charged.taskRuns.map(\.startedAt) == [.t(700)])
    }

    @Test("The same low battery on external power does not block a refresh")
    func lowBatteryChargingRuns() throws {
        let charging = DeviceConditions(powerSource: .externalPower, batteryLevel: 0.05)
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))], device: charging)
        #expect(try d.tick(at: .t(60)).taskRuns.map(\.startedAt) == [.t(60)])
    }

    @Test("A processing task on external power is not blocked by a low battery")
    func processingOnPowerIgnoresBattery() throws {
        let charging = DeviceConditions(powerSource: .externalPower, batteryLevel: 0.05, isIdle: true)
        var d = try Self.suspended(
            with: [.processing(notes.processingID(), notBefore: .t(60), power: true)],
            device: charging
        )
        #expect(try d.tick(at: .t(60)).taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    // MARK: Rate limiting (§3.1 factor 7)

    @Test("Two background runs of the same app are at least 15 minutes apart")
    func rateLimited() throws {
        var d = try Self.suspended(with: [.refresh(notes.refreshID, notBefore: .t(60))])
        let first = try #require(try d.tick(at: .t(60)).taskRuns.first)
        // The handler resubmits (R2.9), then completes.
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(120)), at: .t(61))
        try d.complete(notes, first.id, at: .t(62))
        #expect(d.state(notes) == .suspended)
        #expect(try d.tick(at: .t(120)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.refreshID, at: .t(120))?.unmet == [.rateLimited(until: .t(960))])
        #expect(try d.tick(at: .t(959, 999)).taskRuns.isEmpty)
        #expect(try d.tick(at: .t(960)).taskRuns.map(\.startedAt) == [.t(960)])
    }

    // MARK: Budget (§3.1 factor 6)

    @Test("A spent background budget blocks refresh tasks until it has refilled")
    func budgetExhaustion() throws {
        var d = try Self.suspended(
            with: [
                .processing(notes.processingID(), notBefore: .t(100)), .refresh(notes.refreshID, notBefore: .t(1000)),
            ],
            device: .idleCharging
        )
        let long = try #require(try d.tick(at: .t(100)).taskRuns.first)
        #expect(long.request.kind == .processing)
        // 590 s of the 600 s daily budget are spent; a refresh needs 30 s, and 20 s refill in 2880 s.
        try d.complete(notes, long.id, at: .t(690))
        #expect(try d.tick(at: .t(1000)).taskRuns.isEmpty)
        let why = try #require(d.why(notes, notes.refreshID, at: .t(1000)))
        let refilled = try #require(why.unmet.compactMap(\.clearsAt).max())
        #expect(why.unmet.count == 1)
        #expect(abs((refilled - .t(3570)).seconds) < 0.001, "budget refilled at \(refilled)")
        #expect(try d.tick(at: .t(3569)).taskRuns.isEmpty)
        let wake = try #require(d.system.nextDeadline)
        #expect(abs((wake - refilled).seconds) < 0.001)
        let runs = try d.tick(at: wake).taskRuns
        #expect(runs.map(\.request.identifier) == [notes.refreshID])
    }

    // MARK: System-wide concurrency

    static let fiveApps = [notes, mail, maps, news, photos]

    /// Five apps opened at T+0, each with a refresh due at T+100, suspended.
    static func fiveDue() throws -> Driver {
        var d = try Driver.opened(fiveApps)
        for app in fiveApps {
            try d.submit(app, .refresh(app.refreshID, notBefore: .t(100)), at: .t(1))
            try d.background(app, at: .t(2))
        }
        return d
    }

    @Test("At most 4 apps run tasks at once: the 5th waits (systemBusy) and runs when a slot frees")
    func fourAppsAtOnce() throws {
        var d = try Self.fiveDue()
        let due = try d.tick(at: .t(100))
        #expect(due.taskBatches.map(\.app) == [notes, mail, maps, news])
        #expect(d.why(photos, photos.refreshID, at: .t(100))?.unmet == [.systemBusy])
        #expect(d.why(photos, photos.refreshID, at: .t(100))?.decidingFactor == .systemBusy)
        let notesRun = try #require(due.taskRuns.first)
        let freed = try d.complete(notes, notesRun.id, at: .t(110))
        #expect(freed.taskBatches.map(\.app) == [photos])
        #expect(freed.taskRuns.map(\.startedAt) == [.t(110)])
    }

    @Test("A slot freed because the watchdog ended an app's task lets the waiting 5th app run")
    func slotFreedByWatchdog() throws {
        var d = try Self.fiveDue()
        #expect(try d.tick(at: .t(100)).taskBatches.count == 4)
        // None of the four completes: all are ended with 0x8badf00d at T+130.
        let ended = try d.tick(at: .t(130))
        #expect(ended.reports.count == 4)
        let runs = ended.taskRuns + (try d.tick(at: .t(131)).taskRuns)
        #expect(runs.map(\.request.identifier) == [photos.refreshID], "the waiting app never ran")
        #expect(runs.map(\.startedAt) == [.t(130)])
    }

    @Test("A task that waited on a busy system and a rate limit runs once both have cleared")
    func busyAndRateLimited() throws {
        var d = try Driver.opened(Self.fiveApps)
        // Photos runs a refresh at T+10 (rate limited until T+910) and resubmits it for T+850.
        try d.submit(photos, .refresh(photos.refreshID, notBefore: .t(10)), at: .t(1))
        try d.background(photos, at: .t(1))
        let first = try #require(try d.tick(at: .t(10)).taskRuns.first)
        try d.submit(photos, .refresh(photos.refreshID, notBefore: .t(850)), at: .t(11))
        try d.complete(photos, first.id, at: .t(12))
        // The four others are busy from T+840 to T+860.
        for app in Self.fiveApps.prefix(4) {
            try d.submit(app, .refresh(app.refreshID, notBefore: .t(840)), at: .t(13))
            try d.background(app, at: .t(13))
        }
        let busy = try d.tick(at: .t(840))
        #expect(busy.taskBatches.count == 4)
        #expect(try d.tick(at: .t(850)).taskRuns.isEmpty)
        #expect(d.why(photos, photos.refreshID, at: .t(850))?.unmet == [.rateLimited(until: .t(910)), .systemBusy])
        for run in busy.taskRuns {
            let app = Self.fiveApps.first { $0.refreshID == run.request.identifier }!
            try d.complete(app, run.id, at: .t(860))
        }
        #expect(d.why(photos, photos.refreshID, at: .t(910))?.unmet == [])
        let later = try d.tick(at: .t(910)).taskRuns + (try d.tick(at: .t(4000)).taskRuns)
        #expect(later.map(\.request.identifier) == [photos.refreshID], "eligible since T+910 but never run")
        #expect(later.first?.startedAt == .t(910))
    }

    // MARK: App usage (R2.12)

    @Test("A processing task does not run if the app was not used within 7 days; opening the app releases it")
    func processingNeedsRecentUse() throws {
        let week: Int64 = 7 * 86_400
        var d = try Self.suspended(
            with: [.processing(notes.processingID(), notBefore: .t(week + 1))],
            device: .idleCharging
        )
        #expect(try d.tick(at: .t(week + 1)).taskRuns.isEmpty)
        #expect(d.why(notes, notes.processingID(), at: .t(week + 1))?.unmet == [.appNotUsedRecently])
        #expect(try d.tick(at: .t(week + 86_400)).taskRuns.isEmpty)
        // Reclaimed meanwhile; the user opens it again.
        try d.send(.terminate(notes, .systemReclaimed), at: .t(week + 86_401))
        let opened = try d.openRegistered(notes, at: .t(week + 90_000))
        #expect(opened.taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    @Test("Switching back to a suspended app counts as using it for the 7-day rule")
    func foregroundFromSuspendedIsUse() throws {
        let week: Int64 = 7 * 86_400
        var d = try Self.suspended(
            with: [.processing(notes.processingID(), notBefore: .t(week + 1000))],
            device: .idleCharging
        )
        // On day 6 the user switches to the app (still in memory), uses it, and leaves it.
        try d.send(.enterForeground(notes), at: .t(6 * 86_400))
        try d.send(.activate(notes), at: .t(6 * 86_400))
        try d.background(notes, at: .t(6 * 86_400 + 60))
        let due = try d.tick(at: .t(week + 1000))
        #expect(due.taskRuns.map(\.request.identifier) == [notes.processingID()], "last use taken as T+0")
    }

    @Test("A processing task due within 7 days of the last use runs")
    func processingWithinAWeek() throws {
        let week: Int64 = 7 * 86_400
        var d = try Self.suspended(
            with: [.processing(notes.processingID(), notBefore: .t(week))],
            device: .idleCharging
        )
        #expect(try d.tick(at: .t(week)).taskRuns.map(\.request.identifier) == [notes.processingID()])
    }

    /// Notes not running, its refresh (due at T+60) restored; at T+60 it is launched in the
    /// background for it and registers its handlers at T+61.
    static func launchingForRefresh() throws -> Driver {
        let request = TaskRequest.refresh(notes.refreshID, notBefore: .t(60))
        var d = try Driver.restored([request])
        #expect(try d.tick(at: .t(60)).contains(.deliverBackgroundWake(notes)))
        try d.register(notes, notes.listedTaskIDs, at: .t(61))
        return d
    }

    @Test("A refresh sent back to pending after a background launch still respects the limit of 1 pending refresh")
    func requeuedAfterLaunchRespectsLimit() throws {
        var d = try Self.launchingForRefresh()
        // During its launch the app submits another refresh; then Low Power Mode comes on.
        try d.submit(notes, .refresh(notes.otherRefreshID), at: .t(61))
        try d.device(DeviceConditions(lowPowerMode: true), at: .t(62))
        try d.send(.backgroundWakeReturned(notes), at: .t(63))
        let refreshes = d.system.pendingRequests(of: notes).filter { $0.kind == .appRefresh }
        #expect(refreshes.count <= 1, "pending: \(refreshes.map(\.identifier))")
    }

    @Test("A request resubmitted during a background launch is not overwritten by the older one it replaced")
    func requeuedAfterLaunchKeepsNewest() throws {
        var d = try Self.launchingForRefresh()
        let newer = try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(5000)), at: .t(61))
        #expect(newer.acceptedRequests.count == 1)
        try d.device(DeviceConditions(lowPowerMode: true), at: .t(62))
        try d.send(.backgroundWakeReturned(notes), at: .t(63))
        #expect(d.system.pendingRequests(of: notes).map(\.earliestBegin) == [.t(5000)])
    }

    @Test("A processing task handed to an app launching in the background does not start once the device is in use")
    func processingAfterWakeNeedsIdle() throws {
        var d = try Driver.restored([.processing(notes.processingID(), notBefore: .t(100))])
        try d.device(.idleCharging, at: .zero)
        #expect(try d.tick(at: .t(100)).contains(.deliverBackgroundWake(notes)))
        // The user picks up the phone while the app is launching.
        try d.device(DeviceConditions(powerSource: .externalPower), at: .t(101))
        try d.register(notes, notes.listedTaskIDs, at: .t(102))
        let returned = try d.send(.backgroundWakeReturned(notes), at: .t(103))
        #expect(returned.taskRuns.isEmpty, "processing started while the device is in use")
    }
}
