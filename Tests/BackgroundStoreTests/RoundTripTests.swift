import BackgroundCore
import BackgroundStore
import Testing

@Suite("Round trip: what apply writes, load reads back as the core restores it")
struct RoundTripTests {
    @Test("Every kind of change loads back as the PersistedApp the core restores, times to the millisecond")
    func everyKindOfChange() throws {
        let store = try BackgroundStore.inMemory()
        let refresh = fullRequest("com.example.news.refresh", kind: .appRefresh, submittedAt: .milliseconds(1_001))
        let export = fullRequest("com.example.news.export", kind: .processing, submittedAt: .milliseconds(2_002))
        let upload = fullRequest("com.example.news.upload.1", kind: .continuedProcessing, submittedAt: .seconds(3))
        let fetch = TaskRequest(identifier: "fetch", kind: .fetch, submittedAt: .milliseconds(4_004))
        let dropped = TaskRequest(identifier: "dropped", kind: .processing, submittedAt: .seconds(5))
        let changes: [StoreChange] = [
            .savePendingRequest(news, refresh), .savePendingRequest(news, export),
            .savePendingRequest(news, upload), .savePendingRequest(news, fetch),
            .savePendingRequest(news, dropped), .deletePendingRequest(news, identifier: "dropped"),
            .recordLaunch(news, at: .milliseconds(10_250)), .recordLaunch(news, at: .milliseconds(20_500)),
            .saveAppState(news, fullState()),
            .savePendingRequest(notes, dropped), .deleteAllPendingRequests(notes),
        ]
        try store.apply(changes, clock: clock)

        let expected = [
            PersistedApp(
                app: news,
                pendingRequests: [refresh, export, upload, fetch],
                launches: [.milliseconds(10_250), .milliseconds(20_500)],
                state: fullState()
            ),
            PersistedApp(app: notes),
        ]
        #expect(try store.load(clock: clock) == expected)
        var reference = ReferenceStore()
        reference.apply(changes)
        #expect(reference.restored == expected)
    }

    @Test("Saving a request with an identifier the app already has replaces it")
    func saveReplaces() throws {
        let store = try BackgroundStore.inMemory()
        let first = TaskRequest(identifier: "refresh", kind: .appRefresh, submittedAt: .seconds(1))
        var second = fullRequest("refresh", kind: .appRefresh, submittedAt: .seconds(2))
        second.title = "second"
        try store.apply([.savePendingRequest(news, first)], clock: clock)
        try store.apply([.savePendingRequest(news, second)], clock: clock)
        #expect(try store.load(clock: clock).first?.pendingRequests == [second])
    }

    @Test("deleteAllPendingRequests removes every request of that app and keeps other apps' requests")
    func deleteAll() throws {
        let store = try BackgroundStore.inMemory()
        let request = TaskRequest(identifier: "work", kind: .processing, submittedAt: .seconds(1))
        try store.apply(
            [
                .savePendingRequest(news, request),
                .savePendingRequest(news, TaskRequest(identifier: "other", kind: .appRefresh)),
                .savePendingRequest(notes, request),
                .saveAppState(news, fullState()),
            ],
            clock: clock
        )
        try store.apply([.deleteAllPendingRequests(news)], clock: clock)
        let apps = try store.load(clock: clock)
        #expect(apps.map(\.app) == [news, notes])
        #expect(apps[0].pendingRequests.isEmpty)
        #expect(apps[0].state == fullState())
        #expect(apps[1].pendingRequests == [request])
    }

    @Test("Deleting a request that does not exist, or of an unknown app, changes nothing")
    func deleteUnknown() throws {
        let store = try BackgroundStore.inMemory()
        let request = TaskRequest(identifier: "work", kind: .processing)
        try store.apply([.savePendingRequest(news, request)], clock: clock)
        try store.apply(
            [
                .deletePendingRequest(news, identifier: "missing"), .deletePendingRequest(notes, identifier: "work"),
                .deleteAllPendingRequests("com.example.unknown"),
            ],
            clock: clock
        )
        #expect(try store.load(clock: clock) == [PersistedApp(app: news, pendingRequests: [request])])
    }

    @Test("An app whose state was never saved loads with state nil; a saved state can be replaced")
    func stateNilUntilSaved() throws {
        let store = try BackgroundStore.inMemory()
        try store.apply([.recordLaunch(news, at: .seconds(1))], clock: clock)
        #expect(try store.load(clock: clock).first?.state == nil)
        let empty = PersistedAppState(
            forceQuit: false,
            refreshSwitch: true,
            runtimeBudget: RuntimeBudget(capacity: .seconds(600), at: .zero),
            lastBackgroundRunAt: nil,
            fetchInterval: nil,
            lastFetchAt: nil
        )
        try store.apply([.saveAppState(news, fullState())], clock: clock)
        try store.apply([.saveAppState(news, empty)], clock: clock)
        #expect(try store.load(clock: clock).first?.state == empty)
    }

    @Test("Apps load sorted by bundle id, requests by submission time, launches oldest first")
    func ordering() throws {
        let store = try BackgroundStore.inMemory()
        let late = TaskRequest(identifier: "a-late", kind: .processing, submittedAt: .seconds(50))
        let early = TaskRequest(identifier: "z-early", kind: .processing, submittedAt: .seconds(5))
        try store.apply(
            [
                .recordLaunch(notes, at: .seconds(30)), .recordLaunch(notes, at: .seconds(10)),
                .savePendingRequest(notes, late), .savePendingRequest(notes, early),
                .recordLaunch("com.example.alpha", at: .seconds(1)),
            ],
            clock: clock
        )
        let apps = try store.load(clock: clock)
        #expect(apps.map(\.app) == ["com.example.alpha", notes])
        #expect(apps[1].pendingRequests == [early, late])
        #expect(apps[1].launches == [.seconds(10), .seconds(30)])
    }

    @Test("Instants come back within a microsecond, whatever the origin of the new timeline")
    func precision() throws {
        let store = try BackgroundStore.inMemory()
        let submitted = Instant(offset: .nanoseconds(123_456_789_123))
        let request = TaskRequest(identifier: "r", kind: .appRefresh, submittedAt: submitted)
        try store.apply([.savePendingRequest(news, request)], clock: clock)
        // The next start: the timeline's origin is 1000.000_000_7 s later.
        let later = WallClock(unixSecondsAtOrigin: clock.unixSecondsAtOrigin + 1_000.000_000_7)
        let loaded = try #require(try store.load(clock: later).first?.pendingRequests.first)
        let error = loaded.submittedAt - Instant(offset: .nanoseconds(123_456_789_123 - 1_000_000_000_700))
        #expect(abs(error.seconds) <= 1e-6, "off by \(error)")
    }

    @Test("Instant.distantFuture and instants before the origin load back exactly")
    func extremeInstants() throws {
        let store = try BackgroundStore.inMemory()
        var state = fullState()
        state.lastBackgroundRunAt = .distantFuture
        state.lastFetchAt = .milliseconds(-86_400_123)
        try store.apply([.saveAppState(news, state)], clock: clock)
        let loaded = try store.load(clock: clock).first?.state
        #expect(loaded?.lastBackgroundRunAt == .distantFuture)
        #expect(loaded?.lastFetchAt == .milliseconds(-86_400_123))
        #expect(loaded == state)
    }

    @Test("A saved manifest loads with its app; deleting the app deletes its requests and launches")
    func manifestAndDeleteApp() throws {
        let store = try BackgroundStore.inMemory()
        let manifest = AppManifest(
            bundleIdentifier: news,
            permittedTaskIdentifiers: ["com.example.news.refresh", "com.example.news.upload.*"],
            backgroundModes: [.fetch, .processing, BackgroundMode(rawValue: "teleport")]
        )
        try store.saveManifest(manifest)
        try store.apply(
            [
                .savePendingRequest(news, TaskRequest(identifier: "r", kind: .appRefresh)),
                .recordLaunch(news, at: .zero),
            ],
            clock: clock
        )
        #expect(try store.load(clock: clock).first?.manifest == manifest)
        try store.deleteApp(news)
        #expect(try store.load(clock: clock).isEmpty)
    }

    @Test("A batch that fails part-way writes none of its changes")
    func batchIsAtomic() throws {
        let store = try BackgroundStore.inMemory()
        let request = TaskRequest(identifier: "r", kind: .appRefresh)
        // The empty bundle identifier breaks the apps table's CHECK constraint.
        let error = storeError {
            try store.apply([.savePendingRequest(news, request), .recordLaunch("", at: .zero)], clock: clock)
        }
        #expect(error?.code == .writeFailed)
        #expect(error?.sqlitePrimaryResultCode == 19)  // SQLITE_CONSTRAINT
        #expect(try store.load(clock: clock).isEmpty)
    }
}
