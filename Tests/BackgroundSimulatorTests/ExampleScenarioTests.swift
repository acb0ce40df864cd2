import BackgroundSimulator
import BackgroundTestSupport
import Foundation
import Testing

/// The example scenarios of `examples/`: each one runs and passes its own `expect` block, each
/// one validates against the JSON Schema, and each one tells the story its description tells,
/// checked here on the simulator beyond what the expectations can say.
@MainActor
@Suite("Example scenarios")
struct ExampleScenarioTests {
    @Test("Every example runs and meets its expectations", arguments: Examples.names)
    func examplePasses(_ name: String) async throws {
        let run = try Examples.run(name)
        #expect(
            run.passed,
            "\(name): failures \(run.failures), violations \(run.simulator.violations)"
        )
        #expect(run.scenario.expectations != nil, "\(name) has no expect block")
    }

    @Test("examples/ holds the documented set of examples")
    func examplesArePresent() {
        let expected = [
            "force-quit.json", "leaked-assertion.json", "low-battery-day.json", "news-refresh-day.json",
            "overnight-db-cleanup.json", "photo-upload-on-save.json", "modes-and-silent-pushes.json",
            "memory-pressure.json", "background-downloads.json",
        ]
        #expect(Set(expected).isSubset(of: Examples.names), "found \(Examples.names)")
    }

    @Test(
        "Every example validates against the JSON Schema",
        .enabled(
            if: SchemaValidator.isAvailable || OptionalTools.required,
            "skipped: needs Python's jsonschema; apt-get install python3-jsonschema (or pip install jsonschema)"
        )
    )
    func examplesValidate() async throws {
        let paths = Examples.names.map { Examples.directory.appending(path: $0).path }
        let verdicts = try await SchemaValidator.verdicts(paths)
        #expect(verdicts.count == paths.count)
        for (name, verdict) in zip(Examples.names, verdicts) {
            #expect(verdict == "valid", "\(name): \(verdict)")
        }
    }

    // MARK: The stories

    @Test(
        "Modes and pushes: audio keeps the podcast app running 45 min, undeclared location does not, 3 pushes an hour"
    )
    func modesAndSilentPushes() async throws {
        let run = try Examples.run("modes-and-silent-pushes.json")
        let simulator = run.simulator
        let podcasts = AppID("com.example.podcasts")
        let left = try #require(simulator.firstEvent { Self.entersBackground($0, podcasts) })
        let suspended = try #require(
            simulator.firstEvent { Self.changes($0, podcasts, from: .background, to: .suspended) }
        )
        #expect(left.at == (try Examples.instant("07:05", in: run)))
        #expect(suspended.at == (try Examples.instant("07:47", in: run)), "suspended when playback ends, not at 30 s")

        let tracker = AppID("com.example.tracker")
        let trackerLeft = try #require(simulator.firstEvent { Self.entersBackground($0, tracker) })
        let trackerSuspended = try #require(
            simulator.firstEvent { Self.changes($0, tracker, from: .background, to: .suspended) }
        )
        #expect(trackerSuspended.at == trackerLeft.at, "undeclared location keeps nothing running")

        let chat = AppID("com.example.chat")
        let starts = simulator.taskRuns(of: chat).map(\.run.startedAt)
        let expected = try ["08:00", "08:10", "08:20", "09:00"].map { try Examples.instant($0, in: run) }
        #expect(starts == expected, "the fourth push waits for the hour; the fifth replaced it")

        let timeline = TimelineDocument(simulator: simulator, title: "modes")
        let lane = try #require(timeline.apps.first { $0.id == podcasts.bundleIdentifier }?.modes)
        #expect(lane.map(\.label) == ["audio"])
        #expect(lane.first.map { $0.end - $0.start } == 2700.0)  // 45 minutes
        #expect(timeline.apps.first { $0.id == tracker.bundleIdentifier }?.modes.isEmpty == true)
        #expect(TimelineRenderer.html(for: timeline).contains("app-0-modes"))
    }

    @Test("Memory pressure: news and weather are reclaimed; the radio holding 'audio' is not, and has a modes lane")
    func memoryPressure() async throws {
        let run = try Examples.run("memory-pressure.json")
        let simulator = run.simulator
        let reclaimed = simulator.reports.map(\.app.bundleIdentifier)
        #expect(reclaimed == ["com.example.news", "com.example.weather"], "least recently used first")

        let radio = AppID("com.example.radio")
        let left = try #require(simulator.firstEvent { Self.entersBackground($0, radio) })
        let suspended = try #require(
            simulator.firstEvent { Self.changes($0, radio, from: .background, to: .suspended) }
        )
        #expect(left.at == (try Examples.instant("09:00", in: run)), "the camera's launch sends it to the background")
        #expect(suspended.at == (try Examples.instant("09:30", in: run)), "suspended when playback ends")

        let timeline = TimelineDocument(simulator: simulator, title: "memory pressure")
        let lane = try #require(timeline.apps.first { $0.id == radio.bundleIdentifier }?.modes)
        #expect(lane.map(\.label) == ["audio"])
        #expect(lane.first.map { $0.end - $0.start } == 3600.0)  // an hour, from its launch at 08:30
        #expect(TimelineRenderer.html(for: timeline).contains("modes"))

        // The device lane draws each warning, at the minute it was reported.
        let memory = timeline.deviceMarkers.filter { $0.label.hasPrefix("memory") }
        #expect(memory.map(\.label) == ["memory warning", "memory warning"])
        #expect(memory.allSatisfy { $0.severity == .warning })
        let first = try Examples.instant("09:01", in: run)
        #expect(memory.first?.time == first.seconds)
        #expect(TimelineRenderer.html(for: timeline).contains("memory warning"))
        let logged = simulator.firstEvent { event in
            if case .device(.memoryPressure(.warning), _) = event.kind { return true }
            return false
        }
        #expect(logged?.at == first, "the report is a device event in the log")
    }

    @Test("Photo upload: one upload ends itself after 20 s, the other is ended by its expiration handler")
    func photoUpload() async throws {
        let run = try Examples.run("photo-upload-on-save.json")
        let simulator = run.simulator
        #expect(simulator.reports.isEmpty)

        let photos = AppID("com.example.photos")
        let movedOut = try #require(simulator.firstEvent { Self.entersBackground($0, photos) })
        let ended = try #require(simulator.firstEvent { Self.endsBackgroundTask($0, photos) })
        #expect(ended.at - movedOut.at == .seconds(20), "the app ends \"Upload photo\" itself")
        #expect(!simulator.events.contains { Self.callsExpirationHandler($0, photos) })

        let raw = AppID("com.example.rawcamera")
        let rawOut = try #require(simulator.firstEvent { Self.entersBackground($0, raw) })
        let expiring = try #require(simulator.firstEvent { Self.callsExpirationHandler($0, raw) })
        let rawEnded = try #require(simulator.firstEvent { Self.endsBackgroundTask($0, raw) })
        let suspended = try #require(simulator.firstEvent { Self.changes($0, raw, from: .background, to: .suspended) })
        #expect(expiring.at - rawOut.at == .seconds(25), "5 s before the 30 s budget runs out")
        #expect(rawEnded.at == expiring.at, "the expiration handler ends the task")
        #expect(suspended.at == expiring.at, "suspended at once, 15 s of the upload undone")
    }

    @Test("Overnight clean-up: the single run starts idle, on external power, after a day idle on battery")
    func overnightCleanup() async throws {
        let run = try Examples.run("overnight-db-cleanup.json")
        let simulator = run.simulator
        let notes = AppID("com.example.notes")
        let runs = simulator.taskRuns(of: notes)
        try #require(runs.count == 1)
        let cleanup = runs[0]
        #expect(cleanup.run.request.requiresExternalPower)
        #expect(cleanup.outcome == .succeeded)
        #expect(cleanup.endedAt.map { $0 - cleanup.run.startedAt } == .seconds(4 * 60))

        let start = cleanup.run.startedAt
        let pluggedIn = try #require(simulator.firstEvent { Self.isDevice($0, .pluggedIn) })
        #expect(pluggedIn.at <= start)
        let state = try #require(
            simulator.events.last { $0.at <= start && Self.deviceState($0) != nil }.flatMap(Self.deviceState)
        )
        #expect(state.powerSource == .externalPower, "the clean-up starts on the charger")
        #expect(state.isIdle && state.isLocked)

        // While the request was pending on battery the device sat idle for hours (locked, the
        // user away): every condition but power was met, and the clean-up did not run.
        let submitted = try #require(simulator.firstEvent { Self.acceptsRequest($0, notes) })
        var idleOnBattery = Duration.zero
        var idleSince: Instant?
        for event in simulator.events where event.at >= submitted.at && event.at <= pluggedIn.at {
            guard let state = Self.deviceState(event) else { continue }
            if state.isIdle && state.powerSource == .battery {
                idleSince = idleSince ?? event.at
            } else if let since = idleSince {
                idleOnBattery += event.at - since
                idleSince = nil
            }
        }
        #expect(idleOnBattery == .seconds(10 * 3600 + 30 * 60), "09:10-12:30, 13:10-18:00 and 20:10-22:30")
    }

    @Test("Force quit: no background launch while the flag is set; refreshes resume after the user opens the app")
    func forceQuit() async throws {
        let run = try Examples.run("force-quit.json")
        let simulator = run.simulator
        let weather = AppID("com.example.weather")
        let report = try #require(simulator.reports.first)
        #expect(report.reason == .userForceQuit)
        #expect(report.stateBefore == .suspended)
        #expect(try report.at == Examples.instant("11:00", in: run))

        let reopened = try #require(
            simulator.events.first { event in
                guard event.at > report.at, case .user(.open(weather)) = event.kind else { return false }
                return true
            }
        )
        let starts = simulator.taskRuns(of: weather).map(\.run.startedAt)
        #expect(starts.filter { $0 < report.at }.count == 3)
        #expect(starts.allSatisfy { $0 < report.at || $0 >= reopened.at }, "nothing runs while force-quit")
        #expect(starts.filter { $0 >= reopened.at }.count == 13)
        // The system never launched the force-quit app in the background: it left "terminated"
        // only when the user opened it.
        let relaunches = simulator.events.compactMap { event -> AppLifecycleState? in
            guard case .system(.stateChanged(weather, .terminated, let to)) = event.kind else { return nil }
            return to
        }
        #expect(relaunches == [.inactive])
    }

    @Test("Low battery: no refresh starts while Low Power Mode is on, from 20 % on battery to 80 % on the charger")
    func lowBatteryPause() async throws {
        let run = try Examples.run("low-battery-day.json")
        let simulator = run.simulator
        let news = AppID("com.example.news")
        let on = try #require(simulator.firstEvent { Self.isDevice($0, .lowPowerMode(true, automatic: true)) })
        let off = try #require(simulator.firstEvent { Self.isDevice($0, .lowPowerMode(false, automatic: true)) })
        let onState = try #require(Self.deviceState(on))
        let offState = try #require(Self.deviceState(off))
        #expect(onState.powerSource == .battery && abs(onState.batteryLevel - 0.2) < 1e-9)
        #expect(offState.powerSource == .externalPower && abs(offState.batteryLevel - 0.8) < 1e-9)

        let starts = simulator.taskRuns(of: news).map(\.run.startedAt)
        #expect(starts.filter { $0 < on.at }.count == 7)
        #expect(!starts.contains { $0 >= on.at && $0 < off.at }, "no refresh in Low Power Mode")
        #expect(starts.first { $0 >= off.at } == off.at, "the waiting refresh runs as Low Power Mode ends")
        #expect(off.at - on.at > .seconds(7 * 3600))
        // Leaving the app in Low Power Mode, its submit is refused as unavailable.
        #expect(
            simulator.events.contains { event in
                guard event.at > on.at, event.at < off.at,
                    case .reply(news, .rejected("com.example.news.refresh", _)) = event.kind
                else { return false }
                return true
            }
        )
    }

    @Test("Leaked assertion: 0x8badf00d 30 s into the background, the report naming \"Sync messages\"")
    func leakedAssertion() async throws {
        let run = try Examples.run("leaked-assertion.json")
        let simulator = run.simulator
        let chat = AppID("com.example.chat")
        try #require(simulator.reports.count == 1)
        let report = simulator.reports[0]
        #expect(report.app == chat)
        #expect(report.code == .watchdogTimeout)
        #expect(report.stateBefore == .background)
        #expect(report.permittedBackgroundDuration == .seconds(30))
        let leaked = try #require(report.leakedAssertions.first)
        #expect(report.leakedAssertions.map(\.name) == ["Sync messages"])
        #expect(leaked.expirationDelivered, "the handler was called, and ignored")
        #expect(report.at - leaked.beganAt == .seconds(30))
        #expect(try report.at == Examples.instant("12:20:30", in: run))
        let expiring = try #require(simulator.firstEvent { Self.callsExpirationHandler($0, chat) })
        #expect(report.at - expiring.at == .seconds(5))
        #expect(report.renderText().contains("Sync messages"))
    }

    // MARK: Event matchers

    private static func entersBackground(_ event: SimulationEvent, _ app: AppID) -> Bool {
        changes(event, app, from: .inactive, to: .background)
    }

    private static func changes(
        _ event: SimulationEvent,
        _ app: AppID,
        from: AppLifecycleState,
        to: AppLifecycleState
    ) -> Bool {
        if case .system(.stateChanged(app, from, to)) = event.kind { return true }
        return false
    }

    private static func endsBackgroundTask(_ event: SimulationEvent, _ app: AppID) -> Bool {
        if case .appCall(app, .endBackgroundTask) = event.kind { return true }
        return false
    }

    private static func callsExpirationHandler(_ event: SimulationEvent, _ app: AppID) -> Bool {
        if case .system(.runExpirationHandler(app, _)) = event.kind { return true }
        return false
    }

    private static func acceptsRequest(_ event: SimulationEvent, _ app: AppID) -> Bool {
        if case .reply(app, .accepted) = event.kind { return true }
        return false
    }

    /// The device after a device event.
    private static func deviceState(_ event: SimulationEvent) -> DeviceState? {
        if case .device(_, let state) = event.kind { return state }
        return nil
    }

    private static func isDevice(_ event: SimulationEvent, _ change: DeviceChange) -> Bool {
        if case .device(change, _) = event.kind { return true }
        return false
    }
}

extension Simulator {
    fileprivate func firstEvent(where matches: (SimulationEvent) -> Bool) -> SimulationEvent? {
        events.first(where: matches)
    }
}

/// The files of `examples/`, found from this file's path.
private enum Examples {
    static let directory = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "examples")

    /// The example files' names, sorted.
    static let names: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    /// Loads and runs one example.
    @MainActor
    static func run(_ name: String) throws -> ScenarioRun {
        try ScenarioRun(Scenario.load(contentsOf: directory.appending(path: name)))
    }

    /// The instant of an `at` written as in the scenario (`"09:10"`, `"day 2 07:00"`).
    @MainActor
    static func instant(_ at: String, in run: ScenarioRun) throws -> Instant {
        Instant(offset: try Scenario.Step.At(parsing: at).offset(from: run.scenario.start))
    }
}
