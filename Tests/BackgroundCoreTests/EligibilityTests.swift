import BackgroundCore
import Testing

@Suite("Eligibility: why a pending task has not run, and the earliest it could")
struct EligibilityTests {
    static let day: Int64 = 86_400

    @Test("An eligible request has no unmet condition, no deciding factor, and could run now")
    func eligibleNow() throws {
        var d = try Driver.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        let why = try #require(d.why(notes, notes.refreshID, at: .t(100)))
        #expect(why.unmet == [])
        #expect(why.isEligible)
        #expect(why.decidingFactor == nil)
        #expect(why.earliestRun == .t(100))
        #expect(why.request.identifier == notes.refreshID)
    }

    @Test("No explanation for an identifier with no pending request")
    func unknownIdentifier() throws {
        let d = try Driver.opened()
        #expect(d.why(notes, notes.refreshID, at: .t(1)) == nil)
        #expect(d.why(mail, mail.refreshID, at: .t(1)) == nil)
    }

    @Test("Unmet device conditions of a processing task: not unlocked, external power, network, device in use")
    func processingDeviceConditions() throws {
        var d = try Driver.opened()
        try d.submit(notes, .processing(notes.processingID(), power: true, network: true), at: .t(1))
        let device = DeviceConditions(powerSource: .battery, network: .none, isIdle: false, unlockedSinceBoot: false)
        try d.device(device, at: .t(2))
        let why = try #require(d.why(notes, notes.processingID(), at: .t(3)))
        #expect(why.unmet == [.notUnlockedSinceBoot, .requiresExternalPower, .requiresNetwork, .deviceInUse])
        #expect(why.earliestRun == .t(3))
        #expect(why.decidingFactor == .notUnlockedSinceBoot)
    }

    @Test("Unmet device conditions of a refresh task: critically low battery and Low Power Mode")
    func refreshDeviceConditions() throws {
        var d = try Driver.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        try d.device(DeviceConditions(batteryLevel: 0.1, lowPowerMode: true), at: .t(2))
        let why = try #require(d.why(notes, notes.refreshID, at: .t(100)))
        #expect(why.unmet == [.batteryCriticallyLow(level: 0.1), .lowPowerMode])
        #expect(why.decidingFactor == .batteryCriticallyLow(level: 0.1))
    }

    /// Notes restored at day 2, 12:00, used at 09:00 on days 0, 1 and 2 (so the predictor has
    /// learned), its budget spent at that instant, its last background run 100 s earlier, and a
    /// refresh pending for day 2, 15:53:20.
    static func timedDriver() throws -> (driver: Driver, now: Int64) {
        let now = 2 * day + 12 * 3600
        let launches: [Instant] = [.t(9 * 3600), .t(day + 9 * 3600), .t(2 * day + 9 * 3600)]
        let state = PersistedAppState(
            forceQuit: false,
            refreshSwitch: true,
            runtimeBudget: RuntimeBudget(available: .zero, updatedAt: .t(now)),
            lastBackgroundRunAt: .t(now - 100),
            fetchInterval: nil,
            lastFetchAt: nil
        )
        var request = TaskRequest.refresh(notes.refreshID, notBefore: .t(230_000))
        request.submittedAt = .t(100)
        var d = Driver()
        try d.send(.tick, at: .t(now))
        let saved = PersistedApp(
            app: notes,
            manifest: .scheduling(notes),
            pendingRequests: [request],
            launches: launches,
            state: state
        )
        try d.send(.restore(saved), at: .t(now))
        return (d, now)
    }

    @Test("Timed conditions: earliestBeginDate, predicted use, budget and rate limit, each with when it clears")
    func timedConditions() throws {
        let (d, now) = try Self.timedDriver()
        let why = try #require(d.why(notes, notes.refreshID, at: .t(now)))
        #expect(why.unmet.count == 4)
        #expect(why.unmet.first == .notBefore(.t(230_000)))
        // The next use is predicted at 09:00 on day 3: refreshes may run from 08:00.
        #expect(why.unmet.contains(.awaitingPredictedUse(.t(3 * Self.day + 8 * 3600))))
        #expect(why.unmet.contains(.rateLimited(until: .t(now + 800))))
        // 30 s of the 600 s daily budget refill in 4320 s.
        let budget = why.unmet.compactMap { condition -> Instant? in
            if case .budgetExhausted(let until) = condition { return until }
            return nil
        }
        #expect(budget.count == 1)
        #expect(abs(((budget.first ?? .zero) - .t(now + 4320)).seconds) < 0.001)
        #expect(why.unmet.allSatisfy { $0.clearsAt != nil })
    }

    @Test("A predicted use comes in whole days: exactly a day after a launch is now, a millisecond later a day on")
    func predictedUseWholeDays() throws {
        let (d, _) = try Self.timedDriver()  // used at 09:00 on days 0, 1 and 2
        func awaited(at now: Instant) throws -> [Instant] {
            try #require(d.why(notes, notes.refreshID, at: now)).unmet.compactMap {
                if case .awaitingPredictedUse(let at) = $0 { return at }
                return nil
            }
        }
        #expect(try awaited(at: .t(3 * Self.day + 8 * 3600 - 1, 999)) == [.t(3 * Self.day + 8 * 3600)])
        #expect(try awaited(at: .t(3 * Self.day + 8 * 3600)) == [])
        #expect(try awaited(at: .t(3 * Self.day + 9 * 3600)) == [], "the use is predicted at this very instant")
        #expect(try awaited(at: .t(3 * Self.day + 9 * 3600, 1)) == [.t(4 * Self.day + 8 * 3600)])
    }

    @Test("earliestRun is the latest of now and every timed condition's clearing instant")
    func earliestRunIsLatestClear() throws {
        let (d, now) = try Self.timedDriver()
        let why = try #require(d.why(notes, notes.refreshID, at: .t(now)))
        #expect(why.earliestRun == .t(3 * Self.day + 8 * 3600))
        let clears = why.unmet.compactMap(\.clearsAt)
        #expect(why.earliestRun == clears.reduce(.t(now), max))
    }

    @Test("With only timed conditions, the deciding factor is the one that clears last")
    func decidingFactorLatestTimed() throws {
        let (d, now) = try Self.timedDriver()
        let why = try #require(d.why(notes, notes.refreshID, at: .t(now)))
        #expect(why.decidingFactor == .awaitingPredictedUse(.t(3 * Self.day + 8 * 3600)))
    }

    @Test("With an untimed condition, the deciding factor is the first untimed one, whatever clears later")
    func decidingFactorFirstUntimed() throws {
        var d = try Driver.opened()
        try d.submit(notes, .processing(notes.processingID(), notBefore: .t(5000), power: true), at: .t(1))
        let why = try #require(d.why(notes, notes.processingID(), at: .t(2)))
        #expect(why.unmet == [.requiresExternalPower, .deviceInUse, .notBefore(.t(5000))])
        #expect(why.decidingFactor == .requiresExternalPower)
        #expect(why.earliestRun == .t(5000))
    }

    @Test("earliestRun and decidingFactor follow their definitions for any list of conditions")
    func definitions() {
        let request = TaskRequest.refresh(notes.refreshID)
        let mixed = Eligibility(
            app: notes,
            request: request,
            at: .t(10),
            unmet: [.rateLimited(until: .t(50)), .lowPowerMode, .notBefore(.t(40)), .forceQuit]
        )
        #expect(mixed.earliestRun == .t(50))
        #expect(mixed.decidingFactor == .lowPowerMode)
        let past = Eligibility(app: notes, request: request, at: .t(100), unmet: [.deviceInUse])
        #expect(past.earliestRun == .t(100))
        let timed = Eligibility(
            app: notes,
            request: request,
            at: .t(10),
            unmet: [.rateLimited(until: .t(70)), .notBefore(.t(40))]
        )
        #expect(timed.decidingFactor == .rateLimited(until: .t(70)))
        #expect(timed.earliestRun == .t(70))
        #expect(UnmetCondition.systemBusy.clearsAt == nil)
        #expect(UnmetCondition.budgetExhausted(until: .t(9)).clearsAt == .t(9))
    }

    @Test("A force-quit app's requests list forceQuit, which clears only when the user opens it")
    func forceQuitListed() throws {
        var d = try Driver.opened()
        try d.submit(notes, .refresh(notes.refreshID, notBefore: .t(60)), at: .t(1))
        try d.send(.terminate(notes, .userForceQuit), at: .t(2))
        let why = try #require(d.why(notes, notes.refreshID, at: .t(3)))
        #expect(why.unmet == [.notBefore(.t(60)), .forceQuit])
        #expect(why.decidingFactor == .forceQuit)
    }
}
