import BackgroundCore
import BackgroundTestSupport
import Testing

@Suite("Invariants")
struct InvariantTests {
    /// The seeds of the long runs; a failure names its seed, and the seed replays it exactly.
    static let seeds: [UInt64] = [0x5EED, 42, 20_261_121]

    @Test("After every event of a long seeded run the invariants hold and time never goes backwards", arguments: seeds)
    func seededRun(seed: UInt64) {
        var fuzzer = Fuzzer(seed: seed, policy: .iOS)
        fuzzer.run(steps: 4000)
        #expect(fuzzer.problems == [], "seed \(seed)")
        #expect(fuzzer.refused < 40)
        // The run must have reached the interesting places, or it proves little.
        #expect(
            fuzzer.seen.isSuperset(of: ["runExpirationHandler", "terminate", "suspend", "assertionDenied", "exit"])
        )
    }

    @Test(
        "With background modes and silent pushes in the stream the invariants hold, and modes are held and ended",
        arguments: seeds
    )
    func seededRunWithModes(seed: UInt64) {
        var fuzzer = Fuzzer(seed: seed, policy: .iOS, modes: true)
        fuzzer.run(steps: 4000)
        #expect(fuzzer.problems == [], "seed \(seed)")
        #expect(fuzzer.seen.contains("modeChanged"))
    }

    @Test(
        "The invariants also hold under iOS 7-12 and under a 20 s server grace",
        arguments: [SystemPolicy.iOS12, .server(grace: .seconds(20))]
    )
    func otherPolicies(policy: SystemPolicy) {
        var fuzzer = Fuzzer(seed: 7, policy: policy)
        fuzzer.run(steps: 3000)
        #expect(fuzzer.problems == [], "policy \(policy.name)")
    }

    @Test("The same seed replays the same timeline, effect for effect")
    func sameSeedSameRun() {
        var first = Fuzzer(seed: 99, policy: .iOS)
        var second = Fuzzer(seed: 99, policy: .iOS)
        first.run(steps: 1500)
        second.run(steps: 1500)
        #expect(first.driver.timeline == second.driver.timeline)
        #expect(first.driver.timeline.count > 1000)
    }

    @Test("An event stamped earlier than the system's time is handled at the system's time")
    func lateStampHandledAtNow() throws {
        var d = Driver()
        try d.open(notes, at: .t(10))
        try d.begin(notes, at: .t(5))
        #expect(d.system.now == .t(10))
        #expect(d.system.assertions(of: notes).first?.beganAt == .t(10))
        #expect(try d.leave(notes, at: .t(3)).last == .scheduleWakeup(at: .t(15)))
        #expect(d.system.checkInvariants() == [])
    }
}

/// Drives a system with a seeded stream of valid events and checks it after every one.
struct Fuzzer {
    private(set) var driver: Driver
    private(set) var problems: [String] = []
    private(set) var seen: Set<String> = []
    /// Events refused with a `BackgroundSystemError` (none is expected: only legal ones are chosen).
    private(set) var refused = 0
    private var rng: SplitMix64
    private var states: [AppID: AppLifecycleState] = [:]
    private var runningHandler: [AppID: AssertionID] = [:]
    private var awaitingDelegate: Set<AppID> = []
    private var wakeup: Instant?
    private let apps = [notes, mail, maps]
    /// Whether background modes and silent pushes are in the stream (issue 11): notes and mail
    /// declare `audio`, `location` and `remote-notification`; maps declares none of them.
    private let modes: Bool

    init(seed: UInt64, policy: SystemPolicy, modes: Bool = false) {
        rng = SplitMix64(seed: seed)
        driver = Driver(policy: policy)
        self.modes = modes
        guard modes else { return }
        for app in apps {
            let declared: Set<BackgroundMode> = app == maps ? [] : [.audio, .location, .remoteNotification]
            _ = try? driver.send(.install(AppManifest(bundleIdentifier: app, backgroundModes: declared)), at: .zero)
        }
    }

    mutating func run(steps: Int) {
        for step in 0..<steps {
            let app = apps[int(apps.count)]
            let event = choose(for: app)
            let stamp = nextStamp()
            let before = driver.system.now
            do {
                let effects = try driver.send(event, at: stamp)
                check(effects, step: step, event: event, stamp: stamp, before: before)
                observe(effects, after: event)
            } catch {
                // Chosen from the state before any deadline due at `stamp` ran; a refusal must
                // leave the system consistent.
                refused += 1
                let found = driver.system.checkInvariants()
                if !found.isEmpty && problems.count < 20 { problems.append("step \(step) \(event) refused: \(found)") }
            }
        }
    }

    // MARK: Choosing

    private mutating func int(_ bound: Int) -> Int { Int(rng.next() % UInt64(bound)) }

    private mutating func choose(for app: AppID) -> Event {
        switch int(100) {
        case 0..<25: return lifecycleEvent(for: app)
        case 25..<50:
            return .beginAssertion(app, name: "T\(int(9))", origin: Site.upload, hasExpirationHandler: int(3) > 0)
        case 50..<65:
            let held = driver.heldIDs(app)
            return .endAssertion(app, .id(held.isEmpty || int(8) == 0 ? 1 + int(5) : held[int(held.count)]))
        case 65..<77: return runningHandler[app].map { .expirationHandlerReturned(app, $0) } ?? .tick
        case 77..<85: return awaitingDelegate.contains(app) ? .didEnterBackgroundReturned(app) : .tick
        case 85..<88:
            let settings: [BackgroundRefreshSetting] = [
                .systemSwitch(int(2) == 0), .appSwitch(app, int(2) == 0), .lowPowerMode(int(2) == 0),
                .restricted(int(4) == 0),
            ]
            return .setBackgroundRefresh(settings[int(settings.count)])
        case 88..<97 where modes:
            let mode: BackgroundMode = [.audio, .location, .voip][int(3)]
            switch int(5) {
            case 0, 1: return .beginModeActivity(app, mode)
            case 2, 3: return .endModeActivity(app, mode)
            default: return .remoteNotification(app, payload: "{}")
            }
        default: return .tick
        }
    }

    private mutating func lifecycleEvent(for app: AppID) -> Event {
        let reasons: [TerminationReason] = [.userForceQuit, .systemReclaimed, .exited(status: Int32(int(2)))]
        let candidates: [Event]
        switch driver.state(app) {
        case .notRunning: candidates = [.launch(app, .foreground), .launch(app, .background)]
        case .terminated(.userForceQuit): candidates = [.launch(app, .foreground)]
        case .terminated: candidates = [.launch(app, .foreground), .launch(app, .background)]
        case .inactive: candidates = [.activate(app), .enterBackground(app), .terminate(app, reasons[int(3)])]
        case .active: candidates = [.deactivate(app), .deactivate(app), .terminate(app, reasons[int(3)])]
        case .background: candidates = [.enterForeground(app), .terminate(app, reasons[int(3)])]
        case .suspended:
            candidates = [.enterForeground(app), .resumeInBackground(app), .terminate(app, reasons[int(2)])]
        }
        return candidates[int(candidates.count)]
    }

    private mutating func nextStamp() -> Instant {
        let now = driver.system.now
        switch int(100) {
        case 0..<3: return now - .milliseconds(int(5000))
        case 3..<70: return now + .milliseconds(int(1500))
        case 70..<93: return now + .milliseconds(int(8000))
        default: return now + .seconds(20 + int(25))
        }
    }

    // MARK: Checking

    private mutating func check(_ effects: [Effect], step: Int, event: Event, stamp: Instant, before: Instant) {
        let system = driver.system
        var found = system.checkInvariants()
        if system.now != max(before, stamp) { found.append("time is \(system.now), expected \(max(before, stamp))") }
        for effect in effects {
            switch effect {
            case .stateChanged(let app, let from, let to):
                if states[app, default: .notRunning] != from {
                    found.append("\(app) left \(from) but was \(states[app, default: .notRunning])")
                }
                states[app] = to
            case .scheduleWakeup(let at):
                if at < system.now { found.append("wake-up requested in the past: \(at)") }
                wakeup = at
            case .cancelWakeup: wakeup = nil
            case .terminate(_, let report), .exit(_, _, let report):
                if report.at < before || report.at > system.now {
                    found.append("report dated \(report.at), outside \(before)...\(system.now)")
                }
            default: break
            }
        }
        if case .beginAssertion(let app, _, _, _) = event, case .granted(let id) = driver.lastReply {
            let last = system.assertions(of: app).last
            if last?.id != id || last?.beganAt != system.now { found.append("\(id) not recorded at \(system.now)") }
        }
        if wakeup != system.nextDeadline {
            found.append(
                "wake-up \(String(describing: wakeup)) but next deadline \(String(describing: system.nextDeadline))"
            )
        }
        for app in apps where states[app, default: .notRunning] != system.state(of: app) {
            found.append("\(app): effects disagree with state")
        }
        if !found.isEmpty && problems.count < 20 { problems.append("step \(step) \(event) at \(stamp): \(found)") }
    }

    private mutating func observe(_ effects: [Effect], after event: Event) {
        switch event {
        case .expirationHandlerReturned(let app, _): runningHandler[app] = nil
        case .didEnterBackgroundReturned(let app): awaitingDelegate.remove(app)
        default: break
        }
        for effect in effects {
            seen.insert(effect.kind)
            switch effect {
            case .runExpirationHandler(let app, let id): runningHandler[app] = id
            case .deliverDidEnterBackground(let app): awaitingDelegate.insert(app)
            default: break
            }
        }
        for app in apps where driver.state(app) != .background {
            runningHandler[app] = nil
            awaitingDelegate.remove(app)
        }
    }
}
