import BackgroundCore
import Testing

@Suite("Restoring scheduler state from the store, and the store changes the scheduler asks for")
struct RestoreTests {
    /// Two requests as the store keeps them: submitted before the system (re)started.
    static let saved: [TaskRequest] = {
        var refresh = TaskRequest.refresh(notes.refreshID, notBefore: .t(100))
        refresh.submittedAt = .t(1)
        var processing = TaskRequest.processing(notes.processingID(), notBefore: .t(100), power: true)
        processing.submittedAt = .t(2)
        return [refresh, processing]
    }()

    static let record = PersistedApp(
        app: notes,
        manifest: .scheduling(notes),
        pendingRequests: saved,
        launches: [.t(0)]
    )

    // MARK: Restore

    @Test("Restored requests are pending again, as they were saved")
    func restoredArePending() throws {
        var d = Driver()
        try d.send(.restore(Self.record), at: .t(5))
        #expect(d.system.pendingRequests(of: notes) == Self.saved)
        #expect(d.why(notes, notes.processingID(), at: .t(5))?.request == Self.saved[1])
        #expect(d.state(notes) == .notRunning)
    }

    @Test(
        "Restored requests are delivered when due once the launched app registers its handlers and finishes launching"
    )
    func restoredAreDelivered() throws {
        var d = Driver()
        try d.send(.restore(Self.record), at: .t(5))
        try d.device(.idleCharging, at: .t(5))
        // The user opens the app at T+10; it registers, but its launch takes until T+150.
        try d.send(.launch(notes, .foreground), at: .t(10))
        #expect(try d.register(notes, notes.listedTaskIDs, at: .t(10)).taskRuns.isEmpty)
        #expect(try d.tick(at: .t(100)).taskRuns.isEmpty)
        let finished = try d.send(.finishLaunching(notes), at: .t(150))
        #expect(finished.taskBatches.count == 1)
        #expect(Set(finished.taskRuns.map(\.request)) == Set(Self.saved))
        #expect(finished.taskRuns.allSatisfy { $0.startedAt == .t(150) })
        #expect(d.pendingIDs(notes).isEmpty)
    }

    @Test("Restoring writes nothing back to the store")
    func restoreDoesNotPersist() throws {
        var system = BackgroundSystem()
        let state = PersistedAppState(
            forceQuit: true,
            refreshSwitch: false,
            runtimeBudget: RuntimeBudget(available: .seconds(100), updatedAt: .zero),
            lastBackgroundRunAt: .zero,
            fetchInterval: nil,
            lastFetchAt: nil
        )
        var record = Self.record
        record.state = state
        let effects = try system.handle(.restore(record), at: .t(5))
        let persisted = effects.filter {
            if case .persist = $0 { return true }
            return false
        }
        #expect(persisted.isEmpty)
        #expect(system.pendingRequests(of: notes) == Self.saved)
    }

    @Test("Restored scheduling state is in force: a force-quit flag still blocks background launches")
    func restoredForceQuit() throws {
        var d = Driver()
        var record = Self.record
        record.state = PersistedAppState(
            forceQuit: true,
            refreshSwitch: true,
            runtimeBudget: RuntimeBudget(capacity: .seconds(600), at: .zero),
            lastBackgroundRunAt: nil,
            fetchInterval: nil,
            lastFetchAt: nil
        )
        try d.send(.restore(record), at: .t(5))
        #expect(try d.tick(at: .t(200)).withoutBookkeeping.isEmpty)
        #expect(d.why(notes, notes.refreshID, at: .t(200))?.unmet == [.forceQuit])
    }

    // MARK: Store changes

    @Test("Submitting writes the request to the store before the submission is answered")
    func submitPersistsFirst() throws {
        var system = BackgroundSystem()
        try system.handle(.install(.scheduling(notes)), at: .zero)
        try system.handle(.launch(notes, .foreground), at: .zero)
        try system.handle(.registerTaskHandler(notes, identifier: notes.refreshID), at: .zero)
        try system.handle(.finishLaunching(notes), at: .zero)
        var effects: [Effect] = []
        let reply = try system.handle(
            .submitTaskRequest(notes, .refresh(notes.refreshID, notBefore: .t(60))),
            at: .t(1),
            into: &effects
        )
        var stored = TaskRequest.refresh(notes.refreshID, notBefore: .t(60))
        stored.submittedAt = .t(1)
        // The write is an effect of the submission itself: a shell carries it out before it
        // hands the reply back to the app.
        #expect(effects.contains(.persist(.savePendingRequest(notes, stored))))
        #expect(reply == .accepted(stored))
    }

    @Test("A refused submission writes nothing to the store")
    func rejectionNotPersisted() throws {
        var d = try Driver.opened()
        let before = d.persisted
        try d.submit(notes, .refresh("com.example.notes.unlisted"), at: .t(1))
        #expect(d.persisted == before)
    }

    @Test("A foreground launch records the launch in the store (usage history)")
    func launchRecorded() throws {
        var system = BackgroundSystem()
        try system.handle(.install(.scheduling(notes)), at: .zero)
        let effects = try system.handle(.launch(notes, .foreground), at: .t(42))
        #expect(effects.contains(.persist(.recordLaunch(notes, at: .t(42)))))
        var other = BackgroundSystem()
        let background = try other.handle(.launch(notes, .background), at: .t(42))
        #expect(!background.contains(.persist(.recordLaunch(notes, at: .t(42)))))
    }

    @Test("A force quit saves the app's state with forceQuit set")
    func forceQuitSaved() throws {
        var d = try Driver.opened()
        try d.send(.terminate(notes, .userForceQuit), at: .t(5))
        let saved = d.persisted.compactMap { change -> PersistedAppState? in
            if case .saveAppState(notes, let state) = change { return state }
            return nil
        }
        #expect(saved.last?.forceQuit == true)
        try d.openRegistered(notes, at: .t(10))
        let reopened = d.persisted.compactMap { change -> PersistedAppState? in
            if case .saveAppState(notes, let state) = change { return state }
            return nil
        }
        #expect(reopened.last?.forceQuit == false)
    }
}
