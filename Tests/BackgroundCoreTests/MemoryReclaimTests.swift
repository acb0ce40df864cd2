import BackgroundCore
import Testing

@Suite("Memory reclaim, the way iOS's jetsam does it (issue 11 §4)")
struct MemoryReclaimTests {
    static let mail: AppID = "com.example.mail"
    static let maps: AppID = "com.example.maps"

    /// Notes, mail and maps opened at T+0, T+10, T+20 (maps last, so most recently used), then
    /// sent to the background and suspended; `foreground` is opened again at T+100.
    static func three(foreground: AppID? = nil) throws -> Driver {
        var d = Driver()
        for (offset, app) in [notes, mail, maps].enumerated() {
            let at = Instant.t(Int64(offset * 10))
            try d.send(.install(AppManifest(bundleIdentifier: app)), at: at)
            try d.send(.launch(app, .foreground), at: at)
            try d.send(.finishLaunching(app), at: at)
            try d.send(.activate(app), at: at)
            try d.background(app, at: at + .seconds(1))
        }
        if let foreground {
            try d.send(.enterForeground(foreground), at: .t(100))
            try d.send(.activate(foreground), at: .t(100))
        }
        return d
    }

    @Test("Under pressure the least recently used suspended app is ended first, reason systemReclaimed, with a report")
    func suspendedFirstLeastRecentlyUsed() throws {
        var d = try Self.three()
        #expect(d.system.reclaimCandidates == [notes, Self.mail, Self.maps])
        let first = try d.send(.memoryPressure(.warning), at: .t(200))
        let report = try #require(first.reports.first)
        #expect(report.app == notes)
        #expect(report.reason == .systemReclaimed)
        #expect(report.explanation.contains("memory pressure"))
        #expect(d.state(notes) == .terminated(.systemReclaimed))
        #expect(d.state(Self.mail) == .suspended)
        try d.send(.memoryPressure(.warning), at: .t(210))
        #expect(d.state(Self.mail) == .terminated(.systemReclaimed))
        #expect(d.system.reclaimCandidates == [Self.maps])
        #expect(d.system.currentMemoryPressure == .warning)
    }

    @Test("Normal pressure reclaims nothing")
    func normalReclaimsNothing() throws {
        var d = try Self.three()
        let effects = try d.send(.memoryPressure(.normal), at: .t(200))
        #expect(effects.reports.isEmpty)
        #expect(d.state(notes) == .suspended)
    }

    @Test("The foreground app is never reclaimed, even at critical with nothing else left")
    func foregroundNeverGoes() throws {
        var d = try Self.three(foreground: Self.maps)
        for second in 0..<5 {
            try d.send(.memoryPressure(.critical), at: .t(200 + Int64(second)))
        }
        #expect(d.state(Self.maps) == .active)
        #expect(d.state(notes) == .terminated(.systemReclaimed))
        #expect(d.state(Self.mail) == .terminated(.systemReclaimed))
        #expect(d.system.reclaimCandidates.isEmpty)
    }

    @Test("Background apps holding assertions get their expiration handlers early, before anything of theirs is killed")
    func assertionHoldersWarnedBeforeAnyKill() throws {
        var d = try Driver.inBackground(handlers: [true])
        #expect(d.state(notes) == .background)
        let warning = try d.send(.memoryPressure(.warning), at: .t(12))
        #expect(warning.reports.isEmpty, "nothing is killed while a handler can still end its task")
        #expect(warning.contains { if case .runExpirationHandler(notes, _) = $0 { true } else { false } })
        // A second warning does not start the handlers again, and kills nothing at warning.
        let again = try d.send(.memoryPressure(.warning), at: .t(12, 500))
        #expect(again.reports.isEmpty)
        #expect(!again.contains { if case .runExpirationHandler = $0 { true } else { false } })
    }

    @Test("At critical, once the handlers have run and nothing suspended is left, the background app is ended")
    func criticalEndsBackgroundAfterHandlers() throws {
        var d = try Driver.inBackground(handlers: [true])
        let warned = try d.send(.memoryPressure(.critical), at: .t(12))
        let handler = try #require(
            warned.compactMap { effect -> AssertionID? in
                if case .runExpirationHandler(_, let id) = effect { return id }
                return nil
            }.first
        )
        #expect(warned.reports.isEmpty)
        try d.send(.expirationHandlerReturned(notes, handler), at: .t(13))  // returned without ending its task
        let ended = try d.send(.memoryPressure(.critical), at: .t(14))
        let report = try #require(ended.reports.first)
        #expect(report.reason == .systemReclaimed)
        #expect(report.leakedAssertions.map(\.name) == ["Task 1"])
    }

    @Test("The policy turns PSI and available memory into a level; a missing reading never raises it")
    func policyLevels() {
        let policy = MemoryPolicy()
        #expect(policy.level(someAverage10: 0, fullAverage10: 0, availableFraction: 0.5) == .normal)
        #expect(policy.level(someAverage10: 12, fullAverage10: 0.5, availableFraction: 0.4) == .warning)
        #expect(policy.level(someAverage10: 40, fullAverage10: 6, availableFraction: 0.4) == .critical)
        #expect(policy.level(someAverage10: nil, fullAverage10: nil, availableFraction: 0.08) == .warning)
        #expect(policy.level(someAverage10: nil, fullAverage10: nil, availableFraction: 0.02) == .critical)
        #expect(policy.level(someAverage10: nil, fullAverage10: nil, availableFraction: nil) == .normal)
        #expect(MemoryPressure.warning < .critical)
    }
}
