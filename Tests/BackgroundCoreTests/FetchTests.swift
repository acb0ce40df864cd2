import BackgroundCore
import Testing

@Suite("Legacy background fetch: setMinimumBackgroundFetchInterval (§4, §2.1)")
struct FetchTests {
    static let fetchID = BackgroundSystem.fetchIdentifier

    /// Notes with the given manifest, opened at T+0 (launch finished, active).
    static func opened(_ manifest: AppManifest) throws -> Driver {
        var d = Driver()
        try d.send(.install(manifest), at: .zero)
        try d.send(.launch(notes, .foreground), at: .zero)
        try d.send(.finishLaunching(notes), at: .zero)
        try d.send(.activate(notes), at: .zero)
        return d
    }

    /// A legacy app: `UIBackgroundModes` `fetch`, no `BGTaskSchedulerPermittedIdentifiers`.
    static let legacy = AppManifest(bundleIdentifier: notes, backgroundModes: [.fetch])

    /// The legacy app asks for fetches at least an hour apart at T+0 and is suspended from T+10.
    static func hourly() throws -> Driver {
        var d = try opened(legacy)
        try d.send(.setMinimumBackgroundFetchInterval(notes, .seconds(3600)), at: .zero)
        try d.background(notes, at: .t(10))
        return d
    }

    @Test(
        "setMinimumBackgroundFetchInterval is ignored (logged) when BGTaskSchedulerPermittedIdentifiers is declared"
    )
    func ignoredWithPermittedIdentifiers() throws {
        var d = try Self.opened(.scheduling(notes))
        let effects = try d.send(.setMinimumBackgroundFetchInterval(notes, .seconds(3600)), at: .t(1))
        #expect(effects.withoutBookkeeping.isEmpty)
        #expect(effects.logs.count == 1)
        #expect(effects.logs.first?.message.contains("ignored") == true)
        #expect(d.why(notes, Self.fetchID, at: .t(1)) == nil)
        try d.background(notes, at: .t(2))
        #expect(try d.tick(at: .t(86_400)).taskRuns.isEmpty)
    }

    @Test("setMinimumBackgroundFetchInterval has no effect, with a log, without UIBackgroundModes 'fetch'")
    func ignoredWithoutFetchMode() throws {
        var d = try Self.opened(AppManifest(bundleIdentifier: notes, backgroundModes: [.processing]))
        let effects = try d.send(.setMinimumBackgroundFetchInterval(notes, .seconds(3600)), at: .t(1))
        #expect(effects.withoutBookkeeping.isEmpty)
        #expect(effects.logs.count == 1)
        #expect(d.why(notes, Self.fetchID, at: .t(1)) == nil)
        try d.background(notes, at: .t(2))
        #expect(try d.tick(at: .t(86_400)).taskRuns.isEmpty)
    }

    @Test("With an interval set, a fetch run is delivered after the interval, and the next is queued after completion")
    func fetchCycle() throws {
        var d = try Self.hourly()
        #expect(d.system.pendingRequests(of: notes).isEmpty)
        #expect(try d.tick(at: .t(3599)).taskRuns.isEmpty)
        let due = try d.tick(at: .t(3600))
        let run = try #require(due.taskRuns.first)
        #expect(due.taskRuns.count == 1)
        #expect(run.request.kind == .fetch)
        #expect(run.request.identifier == Self.fetchID)
        #expect(run.startedAt == .t(3600))
        #expect(run.killAt == .t(3630))
        #expect(due.contains(.stateChanged(notes, from: .suspended, to: .background)))

        try d.complete(notes, run.id, at: .t(3610))
        #expect(d.state(notes) == .suspended)
        #expect(d.why(notes, Self.fetchID, at: .t(3610))?.request.earliestBegin == .t(7200))
        #expect(try d.tick(at: .t(7199)).taskRuns.isEmpty)
        let next = try d.tick(at: .t(7200))
        #expect(next.taskRuns.map(\.request.kind) == [.fetch])
    }

    @Test("Without a minimum interval (backgroundFetchIntervalNever, the default) no fetch is ever delivered")
    func neverByDefault() throws {
        var d = try Self.opened(Self.legacy)
        try d.background(notes, at: .t(10))
        #expect(try d.tick(at: .t(3 * 86_400)).taskRuns.isEmpty)
        #expect(d.why(notes, Self.fetchID, at: .t(3 * 86_400)) == nil)
    }

    @Test("A fetch not completed within 30 s ends the app with 0x8badf00d")
    func fetchWatchdog() throws {
        var d = try Self.hourly()
        let run = try #require(try d.tick(at: .t(3600)).taskRuns.first)
        #expect(try d.tick(at: .t(3629)).reports.isEmpty)
        let report = try #require(try d.tick(at: .t(3630)).reports.first)
        #expect(report.code == .watchdogTimeout)
        #expect(report.uncompletedTasks.map(\.identifier) == [Self.fetchID])
        #expect(report.uncompletedTasks.map(\.kind) == [.fetch])
        #expect(report.uncompletedTasks.map(\.run) == [run.id])
    }
}
