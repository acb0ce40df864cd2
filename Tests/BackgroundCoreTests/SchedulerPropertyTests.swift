import BackgroundCore
import PropertyBased
import Testing

// Property-based tests of the scheduler: seeded random scenarios of device changes, submissions,
// app launches and backgrounding, ticks of up to 6 hours and completions across three apps, on
// virtual time. After every event each property is checked. A failure names the step, and
// PropertyBased prints the generated scenario and the `.fixedSeed(…)` that replays it.

/// One step of a generated scenario. Steps that do not apply in the current state (completing
/// when nothing runs, submitting from a process that is not running) do nothing.
enum SchedulerStep: Sendable, Hashable, CustomStringConvertible {
    /// The device's conditions change.
    case device(DeviceConditions)
    /// The app submits a request: `slot` picks the identifier, `delay` the earliestBeginDate.
    case submit(app: Int, kind: TaskKind, slot: Int, delay: Int64?, power: Bool, network: Bool)
    /// The user opens the app (a launch if it is not running).
    case open(app: Int)
    /// The user leaves the app.
    case leave(app: Int)
    /// The user removes the app from the app switcher.
    case forceQuit(app: Int)
    /// The app's launch code in the background returns.
    case wakeReturns(app: Int)
    /// Time passes.
    case tick(seconds: Int64)
    /// The app completes one of its running tasks.
    case complete(app: Int, pick: Int, success: Bool)

    /// Decodes a step from four random integers (so the library's integer shrinkers shrink it).
    init(choice: Int, app: Int, a: Int, b: Int) {
        switch choice {
        case 0..<12:
            let levels = [0.1, 0.2, 0.5, 0.9]
            let networks: [DeviceConditions.Network] = [.none, .wifi, .cellular]
            self = .device(
                DeviceConditions(
                    powerSource: a % 2 == 0 ? .battery : .externalPower,
                    batteryLevel: levels[(a / 2) % 4],
                    lowPowerMode: (a / 72) % 6 == 0,
                    network: networks[(a / 24) % 3],
                    isIdle: (a / 8) % 3 != 0,
                    unlockedSinceBoot: (a / 432) % 10 != 0
                )
            )
        case 12..<40:
            let scales: [Int64] = [600, 7200, 21_600]
            let delay = b % 4 == 0 ? nil : Int64(b) % scales[(b / 4) % 3]
            self = .submit(
                app: app,
                kind: a % 2 == 0 ? .appRefresh : .processing,
                slot: (a / 2) % 12,
                delay: delay,
                power: (a / 24) % 3 == 0,
                network: (a / 72) % 3 == 0
            )
        case 40..<52: self = .open(app: app)
        case 52..<62: self = .leave(app: app)
        case 62..<65: self = .forceQuit(app: app)
        case 65..<75: self = .wakeReturns(app: app)
        case 75..<90:
            let scales: [Int64] = [10, 60, 900, 3600, 21_600]
            self = .tick(seconds: Int64(b) % (scales[a % 5] + 1))
        default: self = .complete(app: app, pick: a, success: b % 2 == 0)
        }
    }

    var description: String {
        switch self {
        case .device(let c):
            let power = c.powerSource == .externalPower ? "plugged" : "battery"
            let flags = [
                c.isIdle ? "idle" : "in use", c.lowPowerMode ? "LPM" : nil, c.unlockedSinceBoot ? nil : "locked",
            ]
            let text = [power, "\(Int(c.batteryLevel * 100))%", c.network.rawValue] + flags.compactMap { $0 }
            return "device(" + text.joined(separator: " ") + ")"
        case .submit(let app, let kind, let slot, let delay, let power, let network):
            let after = delay.map { "+\($0)s" } ?? "now"
            let needs = (power ? " power" : "") + (network ? " network" : "")
            return "submit(app\(app) \(kind) #\(slot) \(after)\(needs))"
        case .open(let app): return "open(app\(app))"
        case .leave(let app): return "leave(app\(app))"
        case .forceQuit(let app): return "forceQuit(app\(app))"
        case .wakeReturns(let app): return "wakeReturns(app\(app))"
        case .tick(let seconds): return "tick(+\(seconds)s)"
        case .complete(let app, let pick, let success): return "complete(app\(app) #\(pick) \(success))"
        }
    }
}

/// The properties checked after every event.
enum SchedulerProperty: String, Sendable, CaseIterable {
    case notBeforeEarliestBegin
    case processingConditionsAtDelivery
    case pendingLimits
    case earliestRunIsALowerBound
    case invariants
    case earliestRunsAtOnce
}

/// Plays a scenario against a `Driver` and records each property's violations.
struct SchedulerScenario {
    static let apps: [AppID] = [notes, mail, maps]

    private(set) var d = Driver()
    private(set) var violations: [SchedulerProperty: [String]] = [:]
    /// Apps launched in the background whose launch code has not returned.
    private var waking: Set<AppID> = []
    /// For each request (app and exact request), the latest `earliestRun` promised so far.
    private var promised: [PromiseKey: Instant] = [:]
    private var stepLabel = ""

    private struct PromiseKey: Hashable {
        let app: AppID
        let request: TaskRequest
    }

    /// Plays every step, checking the properties after every event.
    static func play(_ steps: [SchedulerStep]) -> SchedulerScenario {
        var scenario = SchedulerScenario()
        scenario.start()
        for (index, step) in steps.enumerated() {
            scenario.stepLabel = "step \(index) \(step)"
            scenario.apply(step)
        }
        return scenario
    }

    private mutating func start() {
        stepLabel = "setup"
        for app in Self.apps { send(.install(.scheduling(app)), at: .zero) }
    }

    // MARK: Steps

    private mutating func apply(_ step: SchedulerStep) {
        let now = d.system.now + .seconds(1)
        switch step {
        case .device(let conditions):
            send(.setDevice(conditions), at: now)
        case .submit(let index, let kind, let slot, let delay, let power, let network):
            let app = Self.apps[index]
            guard d.state(app).isRunning else { return }
            let identifier =
                kind == .appRefresh ? (slot % 2 == 0 ? app.refreshID : app.otherRefreshID) : app.processingID(slot)
            let request = TaskRequest(
                identifier: identifier,
                kind: kind,
                earliestBegin: delay.map { now + .seconds($0) },
                requiresNetworkConnectivity: kind == .processing && network,
                requiresExternalPower: kind == .processing && power
            )
            send(.submitTaskRequest(app, request), at: now)
        case .open(let index):
            open(Self.apps[index], at: now)
        case .leave(let index):
            let app = Self.apps[index]
            if d.state(app) == .active { send(.deactivate(app), at: now) }
            if d.state(app) == .inactive { send(.enterBackground(app), at: now) }
            if d.state(app) == .background { send(.didEnterBackgroundReturned(app), at: now) }
        case .forceQuit(let index):
            let app = Self.apps[index]
            if d.state(app).hasProcess { send(.terminate(app, .userForceQuit), at: now) }
        case .wakeReturns(let index):
            let app = Self.apps[index]
            if waking.contains(app) && d.state(app) == .background { send(.backgroundWakeReturned(app), at: now) }
        case .tick(let seconds):
            send(.tick, at: d.system.now + .seconds(seconds))
        case .complete(let index, let pick, let success):
            let app = Self.apps[index]
            let running = d.system.runningTasks(of: app)
            guard !running.isEmpty, d.state(app).isRunning else { return }
            send(.completeTask(app, running[pick % running.count].id, success: success), at: now)
        }
    }

    /// Each event is sent only if the app is still in the state it needs: a deadline due at the
    /// same instant (a task's kill) may have ended the app in between.
    private mutating func open(_ app: AppID, at now: Instant) {
        switch d.state(app) {
        case .notRunning, .terminated:
            send(.launch(app, .foreground), at: now)
            for identifier in app.listedTaskIDs where d.state(app).isRunning {
                send(.registerTaskHandler(app, identifier: identifier), at: now)
            }
            if d.state(app).isRunning { send(.finishLaunching(app), at: now) }
        case .background, .suspended:
            let launching = waking.contains(app)
            send(.enterForeground(app), at: now)
            if launching && d.state(app).isRunning { send(.finishLaunching(app), at: now) }
        case .inactive, .active:
            break
        }
        if d.state(app) == .inactive { send(.activate(app), at: now) }
    }

    // MARK: Sending and checking

    private mutating func send(_ event: Event, at instant: Instant) {
        let effects: [Effect]
        do {
            effects = try d.send(event, at: instant)
        } catch {
            record(.invariants, "\(event) refused: \(error)")
            return
        }
        check(effects)
        observe(effects)
    }

    /// Answers background launches: the app registers its handlers during the wake.
    private mutating func observe(_ effects: [Effect]) {
        for app in Self.apps where !d.state(app).isRunning || d.state(app).isForeground { waking.remove(app) }
        for effect in effects {
            guard case .deliverBackgroundWake(let app) = effect else { continue }
            waking.insert(app)
            for identifier in app.listedTaskIDs {
                send(.registerTaskHandler(app, identifier: identifier), at: d.system.now)
            }
        }
    }

    private mutating func check(_ effects: [Effect]) {
        let system = d.system
        let device = system.currentDevice
        for case .runTasks(let app, let runs) in effects {
            for run in runs {
                let request = run.request
                let floor = request.earliestBegin ?? request.submittedAt
                if run.startedAt < floor {
                    record(.notBeforeEarliestBegin, "\(app) \(request.identifier) started \(run.startedAt) < \(floor)")
                }
                if request.kind == .processing {
                    var missing: [String] = []
                    if !device.isIdle { missing.append("idle") }
                    if request.requiresExternalPower && device.powerSource != .externalPower { missing.append("power") }
                    if request.requiresNetworkConnectivity && !device.hasNetwork { missing.append("network") }
                    if !missing.isEmpty {
                        record(
                            .processingConditionsAtDelivery,
                            "\(app) \(request.identifier) started at \(run.startedAt) without \(missing)"
                        )
                    }
                }
                if let bound = promised[PromiseKey(app: app, request: request)], run.startedAt < bound {
                    record(
                        .earliestRunIsALowerBound,
                        "\(app) \(request.identifier) started \(run.startedAt), earlier than the promised \(bound)"
                    )
                }
            }
        }
        for app in Self.apps {
            let pending = system.pendingRequests(of: app)
            let refreshes = pending.filter { $0.kind == .appRefresh }.count
            let processing = pending.filter { $0.kind == .processing }.count
            if refreshes > 1 || processing > 10 {
                record(.pendingLimits, "\(app) has \(refreshes) refresh and \(processing) processing requests pending")
            }
            for request in pending {
                guard let why = system.eligibility(of: app, identifier: request.identifier, at: system.now) else {
                    record(.earliestRunIsALowerBound, "\(app) \(request.identifier) pending but not explained")
                    continue
                }
                let key = PromiseKey(app: app, request: request)
                promised[key] = max(promised[key] ?? why.earliestRun, why.earliestRun)
            }
            checkEarliestRunsAtOnce(of: app, pending: pending)
        }
        for violation in system.checkInvariants() { record(.invariants, violation) }
    }

    /// The checker's batch answer is each request's own explanation's earliest run.
    private mutating func checkEarliestRunsAtOnce(of app: AppID, pending: [TaskRequest]) {
        let system = d.system
        let batch = system.pendingRequestsWithEarliestRun(of: app, at: system.now)
        if batch.map(\.request.identifier).sorted() != pending.map(\.identifier).sorted() {
            record(.earliestRunsAtOnce, "\(app): \(batch.map(\.request.identifier)) for \(pending.map(\.identifier))")
        }
        for (request, earliest) in batch {
            let why = system.eligibility(of: app, identifier: request.identifier, at: system.now)
            if why?.earliestRun != earliest || why?.request != request {
                record(
                    .earliestRunsAtOnce,
                    "\(app) \(request.identifier): \(earliest), explained \(String(describing: why))"
                )
            }
        }
    }

    private mutating func record(_ property: SchedulerProperty, _ message: String) {
        guard violations[property, default: []].count < 5 else { return }
        violations[property, default: []].append("\(stepLabel) at \(d.system.now): \(message)")
    }
}

@Suite("Scheduler properties over random scenarios (seeded; failures print the scenario and its seed)")
struct SchedulerPropertyTests {
    /// Scenarios of 10 to 80 steps, each step decoded from four shrinkable integers.
    static let scenarios = zip(
        Gen.int(in: 0...99),
        Gen.int(in: 0...2),
        Gen.int(in: 0...999_999),
        Gen.int(in: 0...999_999)
    )
    .map { choice, app, a, b in SchedulerStep(choice: choice, app: app, a: a, b: b) }
    .array(of: 10...80)

    static let cases = 150

    private func check(_ property: SchedulerProperty) async {
        await propertyCheck(count: Self.cases, input: Self.scenarios) { steps in
            let found = SchedulerScenario.play(steps).violations[property] ?? []
            #expect(found.isEmpty, "\(property.rawValue):\n\(found.joined(separator: "\n"))")
        }
    }

    @Test("No task is delivered before its earliestBeginDate")
    func noTaskBeforeEarliestBegin() async {
        await check(.notBeforeEarliestBegin)
    }

    @Test("Every processing task starts while the device is idle, with external power and network if required")
    func processingStartsOnlyWhenConditionsHold() async {
        await check(.processingConditionsAtDelivery)
    }

    @Test("No app ever has more than 1 refresh and 10 processing requests pending")
    func pendingLimitsHold() async {
        await check(.pendingLimits)
    }

    @Test("A task never starts before an earliestRun the system computed for it at any earlier point")
    func earliestRunIsALowerBound() async {
        await check(.earliestRunIsALowerBound)
    }

    @Test("The earliest runs of an app's pending requests, asked at once, are each request's explained earliest run")
    func earliestRunsAtOnceMatchExplanations() async {
        await check(.earliestRunsAtOnce)
    }

    @Test("checkInvariants() is empty after every event")
    func invariantsHold() async {
        await check(.invariants)
    }
}
