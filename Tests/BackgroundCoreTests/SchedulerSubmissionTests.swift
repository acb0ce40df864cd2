import BackgroundCore
import Testing

@Suite("BGTaskScheduler submission (R2.5–R2.9, §2.3, §2.8)")
struct SchedulerSubmissionTests {
    /// Notes installed with the given modes, opened at T+0 with every listed handler registered.
    static func opened(
        modes: Set<BackgroundMode> = [.fetch, .processing],
        policy: SystemPolicy = .iOS
    ) throws -> Driver {
        var d = Driver(policy: policy)
        try d.install(notes, modes: modes)
        try d.openRegistered(notes, at: .zero)
        return d
    }

    private func rejected(_ identifier: String, _ code: SubmissionRejection) -> Answer {
        .rejected(identifier, code)
    }

    // MARK: notPermitted (3)

    @Test("notPermitted: the identifier is not in BGTaskSchedulerPermittedIdentifiers")
    func unlistedIdentifier() throws {
        var d = try Self.opened()
        let effects = try d.submit(notes, .refresh("com.example.notes.unlisted"), at: .t(1))
        #expect(effects.withoutBookkeeping == rejected("com.example.notes.unlisted", .notPermitted))
        #expect(SubmissionRejection.notPermitted.rawValue == 3)
        #expect(d.pendingIDs(notes).isEmpty)
    }

    @Test("notPermitted: a refresh request without UIBackgroundModes 'fetch'")
    func refreshWithoutFetchMode() throws {
        var d = try Self.opened(modes: [.processing])
        let effects = try d.submit(notes, .refresh(notes.refreshID), at: .t(1))
        #expect(effects.withoutBookkeeping == rejected(notes.refreshID, .notPermitted))
    }

    @Test("notPermitted: a processing request without UIBackgroundModes 'processing'")
    func processingWithoutProcessingMode() throws {
        var d = try Self.opened(modes: [.fetch])
        let effects = try d.submit(notes, .processing(notes.processingID()), at: .t(1))
        #expect(effects.withoutBookkeeping == rejected(notes.processingID(), .notPermitted))
    }

    @Test("notPermitted: a continued-processing request needing the GPU where background GPU is unsupported")
    func gpuUnsupported() throws {
        var d = try Self.opened()
        let identifier = notes.continuedID("gpu")
        try d.send(.registerTaskHandler(notes, identifier: identifier), at: .t(1))
        let effects = try d.submit(notes, .continued(identifier, gpu: true), at: .t(1))
        #expect(effects.withoutBookkeeping == rejected(identifier, .notPermitted))

        var policy = SystemPolicy.iOS
        policy.scheduling.supportsBackgroundGPU = true
        var supported = try Self.opened(policy: policy)
        try supported.send(.registerTaskHandler(notes, identifier: identifier), at: .t(1))
        #expect(try supported.submit(notes, .continued(identifier, gpu: true), at: .t(1)).acceptedRequests.count == 1)
    }

    // MARK: unavailable (1)

    @Test(
        "unavailable: Background App Refresh is off (system switch, app switch, Low Power Mode, restriction)",
        arguments: [
            BackgroundRefreshSetting.systemSwitch(false), .appSwitch(notes, false), .lowPowerMode(true),
            .restricted(true),
        ]
    )
    func refreshOff(setting: BackgroundRefreshSetting) throws {
        var d = try Self.opened()
        try d.send(.setBackgroundRefresh(setting), at: .t(1))
        let refresh = try d.submit(notes, .refresh(notes.refreshID), at: .t(2))
        let processing = try d.submit(notes, .processing(notes.processingID()), at: .t(2))
        #expect(refresh.withoutBookkeeping == rejected(notes.refreshID, .unavailable))
        #expect(processing.withoutBookkeeping == rejected(notes.processingID(), .unavailable))
        #expect(SubmissionRejection.unavailable.rawValue == 1)
    }

    // MARK: tooManyPendingTaskRequests (2)

    @Test("tooManyPendingTaskRequests: a second pending refresh with another identifier (limit 1)")
    func secondRefresh() throws {
        var d = try Self.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(3600)), at: .t(1))
        let effects = try d.submit(notes, .refresh(notes.otherRefreshID, notBefore: .t(3600)), at: .t(2))
        #expect(effects.withoutBookkeeping == rejected(notes.otherRefreshID, .tooManyPendingTaskRequests))
        #expect(d.pendingIDs(notes) == [notes.refreshID])
        #expect(SubmissionRejection.tooManyPendingTaskRequests.rawValue == 2)
    }

    @Test("tooManyPendingTaskRequests: an 11th pending processing request (limit 10)")
    func eleventhProcessing() throws {
        var d = try Self.opened()
        for number in 0..<10 {
            let accepted = try d.submit(notes, .processing(notes.processingID(number)), at: .t(Int64(number + 1)))
            #expect(accepted.acceptedRequests.count == 1, "request \(number)")
        }
        let effects = try d.submit(notes, .processing(notes.processingID(10)), at: .t(20))
        #expect(effects.withoutBookkeeping == rejected(notes.processingID(10), .tooManyPendingTaskRequests))
        #expect(d.pendingIDs(notes) == (0..<10).map { notes.processingID($0) })
        // The refresh limit is separate.
        #expect(try d.submit(notes, .refresh(notes.refreshID), at: .t(21)).acceptedRequests.count == 1)
    }

    // MARK: Replacing (R2.5)

    @Test("Resubmitting a pending identifier replaces the request: the count stays and the new earliestBeginDate wins")
    func resubmitReplaces() throws {
        var d = try Self.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        let again = try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(600)), at: .t(2))
        #expect(again.acceptedRequests.map(\.earliestBegin) == [.t(600)])
        #expect(d.system.pendingRequests(of: notes).map(\.earliestBegin) == [.t(600)])
        try d.background(notes, at: .t(3))
        #expect(try d.tick(at: .t(60)).taskRuns.isEmpty)
        #expect(try d.tick(at: .t(599)).taskRuns.isEmpty)
        #expect(try d.tick(at: .t(600)).taskRuns.map(\.request.earliestBegin) == [.t(600)])
    }

    // MARK: No handler (R2.3)

    @Test("Submitting with no launch handler registered crashes with \"No launch handler registered …\"")
    func submitWithoutHandler() throws {
        var d = Driver()
        try d.install(notes)
        try d.send(.launch(notes, .foreground), at: .zero)
        try d.send(.finishLaunching(notes), at: .zero)
        let effects = try d.submit(notes, .refresh(notes.refreshID), at: .t(1))
        #expect(
            effects.withoutBookkeeping.effects == [
                .fault(notes, message: BackgroundSystem.missingHandlerMessage(notes.refreshID))
            ] && effects.reply == nil
        )
        #expect(
            BackgroundSystem.missingHandlerMessage(notes.refreshID)
                == "No launch handler registered for task with identifier com.example.notes.refresh"
        )
        #expect(d.pendingIDs(notes).isEmpty)
    }

    // MARK: Continued processing (§2.8)

    @Test("Continued processing submitted from the background is immediateRunIneligible")
    func continuedFromBackground() throws {
        var d = try Self.opened()
        let identifier = notes.continuedID("A")
        try d.send(.registerTaskHandler(notes, identifier: identifier), at: .t(1))
        try d.leave(notes, at: .t(2))
        let effects = try d.submit(notes, .continued(identifier), at: .t(3))
        #expect(effects.withoutBookkeeping == rejected(identifier, .immediateRunIneligible))
        #expect(SubmissionRejection.immediateRunIneligible.rawValue == 4)
    }

    @Test("Continued processing with strategy .fail while 2 already run is immediateRunIneligible")
    func continuedFailWhenFull() throws {
        var d = try Self.opened()
        let ids = ["A", "B", "C"].map { notes.continuedID($0) }
        try d.register(notes, ids, at: .t(1))
        #expect(try d.submit(notes, .continued(ids[0]), at: .t(2)).taskRuns.count == 1)
        #expect(try d.submit(notes, .continued(ids[1]), at: .t(3)).taskRuns.count == 1)
        let effects = try d.submit(notes, .continued(ids[2], strategy: .fail), at: .t(4))
        #expect(effects.withoutBookkeeping == rejected(ids[2], .immediateRunIneligible))
    }

    @Test("Continued processing with strategy .queue waits while 2 run, and starts when one completes")
    func continuedQueueWaits() throws {
        var d = try Self.opened()
        let ids = ["A", "B", "C"].map { notes.continuedID($0) }
        try d.register(notes, ids, at: .t(1))
        let first = try #require(try d.submit(notes, .continued(ids[0]), at: .t(2)).taskRuns.first)
        try d.submit(notes, .continued(ids[1]), at: .t(3))
        let queued = try d.submit(notes, .continued(ids[2]), at: .t(4))
        #expect(queued.acceptedRequests.map(\.identifier) == [ids[2]])
        #expect(queued.taskRuns.isEmpty)
        #expect(d.pendingIDs(notes) == [ids[2]])
        #expect(d.why(notes, ids[2], at: .t(4))?.unmet == [.concurrencyLimit])
        let completed = try d.complete(notes, first.id, at: .t(10))
        #expect(completed.taskRuns.map(\.request.identifier) == [ids[2]])
        #expect(completed.taskRuns.first?.startedAt == .t(10))
    }

    @Test("Continued processing ignores earliestBeginDate: it is the submission time, and it starts at once")
    func continuedIgnoresEarliestBegin() throws {
        var d = try Self.opened()
        let identifier = notes.continuedID("A")
        try d.send(.registerTaskHandler(notes, identifier: identifier), at: .t(1))
        let effects = try d.submit(notes, .continued(identifier, notBefore: .t(3600)), at: .t(5))
        #expect(effects.acceptedRequests.map(\.earliestBegin) == [.t(5)])
        #expect(effects.taskRuns.map(\.startedAt) == [.t(5)])
    }

    // MARK: Pending requests (R2.8)

    @Test("pendingRequests(of:) returns copies, oldest submission first, without the ones already running")
    func pendingRequestsOrderAndCopies() throws {
        var d = try Self.opened()
        try d.device(.idleCharging, at: .t(1))
        try d.submit(notes, .processing(notes.processingID(5), notBefore: .t(9000)), at: .t(2))
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(100)), at: .t(3))
        try d.submit(notes, .processing(notes.processingID(1), notBefore: .t(9000)), at: .t(4))
        #expect(d.pendingIDs(notes) == [notes.processingID(5), notes.refreshID, notes.processingID(1)])
        #expect(d.system.pendingRequests(of: notes).map(\.submittedAt) == [.t(2), .t(3), .t(4)])

        var copy = try #require(d.system.pendingRequests(of: notes).first)
        copy.earliestBegin = .t(1)
        copy.requiresExternalPower = true
        #expect(d.system.pendingRequests(of: notes).first?.earliestBegin == .t(9000))

        try d.background(notes, at: .t(5))
        let ran = try d.tick(at: .t(100))
        #expect(ran.taskRuns.map(\.request.identifier) == [notes.refreshID])
        #expect(d.pendingIDs(notes) == [notes.processingID(5), notes.processingID(1)])
        #expect(d.system.runningTasks(of: notes).map(\.request.identifier) == [notes.refreshID])
    }

    // MARK: Cancelling

    @Test("cancel(taskRequestWithIdentifier:) removes the request and deletes it from the store")
    func cancelRemoves() throws {
        var d = try Self.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        try d.submit(notes, .processing(notes.processingID(), notBefore: .t(60)), at: .t(1))
        try d.send(.cancelTaskRequest(notes, identifier: notes.refreshID), at: .t(2))
        #expect(d.pendingIDs(notes) == [notes.processingID()])
        #expect(d.persisted.last == .deletePendingRequest(notes, identifier: notes.refreshID))
        #expect(d.why(notes, notes.refreshID, at: .t(2)) == nil)
        try d.background(notes, at: .t(3))
        #expect(try d.tick(at: .t(60)).taskRuns.isEmpty)
    }

    @Test("cancelAllTaskRequests() removes every request and deletes them all from the store")
    func cancelAllRemoves() throws {
        var d = try Self.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        try d.submit(notes, .processing(notes.processingID(), notBefore: .t(60)), at: .t(1))
        try d.send(.cancelAllTaskRequests(notes), at: .t(2))
        #expect(d.pendingIDs(notes).isEmpty)
        #expect(d.persisted.last == .deleteAllPendingRequests(notes))
        try d.device(.idleCharging, at: .t(3))
        try d.background(notes, at: .t(3))
        #expect(try d.tick(at: .t(60)).taskRuns.isEmpty)
        // A cancelled refresh frees its slot.
        try d.send(.enterForeground(notes), at: .t(61))
        #expect(try d.submit(notes, .refresh(notes.otherRefreshID), at: .t(62)).acceptedRequests.count == 1)
    }
}
