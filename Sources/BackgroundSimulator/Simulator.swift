public import BackgroundCore
public import BackgroundExecution
import Foundation
import HeapModule

/// A virtual device running the background execution system, for tests: apps, a user, a
/// battery, a charger and a network, on virtual time.
///
/// Install apps with their manifest and launch code, then drive the user, the device and the
/// clock. App code written against `BackgroundExecution` (`UIApplication.shared`,
/// `BGTaskScheduler.shared`, delegates) runs unchanged, on the main actor, in virtual time:
/// a day of background behaviour takes milliseconds, and the same seed replays the same run,
/// event for event.
///
/// ```swift
/// @MainActor @Test func newsRefreshesOvernight() {
///     let simulator = Simulator()
///     let news = simulator.install("com.example.news", permittedTaskIdentifiers: ["refresh"],
///                                  backgroundModes: [.fetch]) { process in
///         BGTaskScheduler.shared.register(forTaskWithIdentifier: "refresh", using: nil) { task in
///             process.after(.seconds(5)) { task.setTaskCompleted(success: true) }
///         }
///         try? BGTaskScheduler.shared.submit(BGAppRefreshTaskRequest(identifier: "refresh"))
///     }
///     simulator.user.open(news)
///     simulator.advance(by: .seconds(60))
///     simulator.user.lock()
///     simulator.device.plugIn()
///     simulator.advance(by: .seconds(8 * 3600))
///     #expect(simulator.taskRuns(of: news).contains { $0.outcome == .succeeded })
///     #expect(simulator.violations.isEmpty)
/// }
/// ```
///
/// Everything runs on the main actor, in order: app code must call the system from the main
/// actor (launch code, handlers and ``after(_:_:)`` work all do), and spreads work over time
/// with ``after(_:_:)`` instead of sleeping. Foundation's `Date()` is not virtual: dates handed
/// to the system (`earliestBeginDate`) are read as distances from the real clock's now, to the
/// second, which is what `Date(timeIntervalSinceNow:)` means.
@MainActor
public final class Simulator {
    /// How a simulator is set up.
    public struct Configuration: Sendable {
        /// Seeds ``random``: the same seed gives the same run.
        public var seed: UInt64
        /// The system's numbers.
        public var policy: SystemPolicy
        /// The wall-clock time at T+0 (for time of day and the log).
        public var start: Date
        /// The time zone's offset from UTC, in seconds, for time of day.
        public var utcOffset: Int
        /// The device at T+0.
        public var device: DeviceState
        /// How the battery drains and charges.
        public var battery: BatteryModel
        /// Whether the invariants are checked after every event (see ``InvariantViolation``).
        public var checksInvariants: Bool
        /// Whether every event handed to the system is kept in ``systemEvents`` (benchmarks
        /// replay them into a bare `BackgroundSystem`).
        public var recordsSystemEvents: Bool
        /// Whether every event and every answer crosses an encoding boundary, as bytes of the
        /// protocol a socket to another process carries (the encoding test transport): the
        /// simulator then proves the apps' runtime needs nothing from the system but messages.
        /// Defaults to `$BACKGROUND_ENCODE_MESSAGES == "1"`.
        public var encodesMessages: Bool = EncodingBoundary.requestedByEnvironment

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - seed: Defaults to 0.
        ///   - policy: Defaults to iOS's numbers.
        ///   - start: Defaults to 2026-01-01 00:00 UTC.
        ///   - utcOffset: Defaults to UTC.
        ///   - device: Defaults to a locked phone at 80 % on battery and Wi-Fi.
        ///   - battery: Defaults to ``BatteryModel/init()``.
        ///   - checksInvariants: Defaults to `true`.
        ///   - recordsSystemEvents: Defaults to `false`.
        public init(
            seed: UInt64 = 0,
            policy: SystemPolicy = .iOS,
            start: Date = Date(timeIntervalSince1970: 1_767_225_600),
            utcOffset: Int = 0,
            device: DeviceState = DeviceState(),
            battery: BatteryModel = BatteryModel(),
            checksInvariants: Bool = true,
            recordsSystemEvents: Bool = false
        ) {
            self.recordsSystemEvents = recordsSystemEvents
            self.seed = seed
            self.policy = policy
            self.start = start
            self.utcOffset = utcOffset
            self.device = device
            self.battery = battery
            self.checksInvariants = checksInvariants
        }
    }

    // The stored properties read and written at every step of the run are marked
    // `@exclusivity(unchecked)`: the simulator runs on the main actor alone, and none of them is
    // reached by a closure or a callback while another access to it is open (the core is a value
    // with no callbacks; jobs are taken off the queue before they run). Swift's dynamic
    // exclusivity checks on them were 12 % of a fuzz seed's instructions (callgrind); its static
    // checks still apply.

    /// The configuration the simulator was created with.
    public let configuration: Configuration
    /// The current virtual instant; T+0 is ``Configuration/start``.
    @exclusivity(unchecked) public internal(set) var now: Instant = .zero
    /// A generator seeded with ``Configuration/seed``, for tests and app code that want
    /// randomness that replays.
    public var random: SplitMix64
    /// Everything that happened, in order.
    @exclusivity(unchecked) public internal(set) var events: [SimulationEvent] = []
    /// Every termination report, in order.
    public internal(set) var reports: [TerminationReport] = []
    /// Misuse the system answered with a fault (a crash on iOS), in order; each names its app.
    /// See ``onFault``.
    public internal(set) var faults: [BackgroundFault] = []
    /// Called with each fault of this simulator's apps, on the main actor; either way the fault
    /// is kept in ``faults`` and the log. Starts as ``defaultOnFault`` (`nil` unless bound).
    /// When it is `nil`, the fault fails the test that created this simulator, through the
    /// recorder `BackgroundSimulatorTesting` installs in test binaries (see ``raise(_:)``).
    public var onFault: (@MainActor (BackgroundFault) -> Void)?
    /// The test that created this simulator, as the installed fault recorder names it; `nil`
    /// outside tests.
    nonisolated let faultOwner: String?
    /// Faults no `onFault` handled, raised where their test was not running (a main-queue
    /// block, a thread): reported at the next step (see ``reportUnhandled(_:)``).
    @exclusivity(unchecked) var heldFaults: [BackgroundFault] = []
    /// How many messages crossed the encoding boundary (``Configuration/encodesMessages``): each
    /// event and each answer is one.
    public private(set) var encodedMessageCount = 0
    /// How many events the system has handled.
    @exclusivity(unchecked) public private(set) var systemEventCount = 0
    /// Every event handed to the system, with its instant, when
    /// ``Configuration/recordsSystemEvents`` is on. A reboot starts a new system: its events
    /// follow, starting with the installs and restores.
    public private(set) var systemEvents: [(at: Instant, event: Event)] = []
    /// The store the system persists to; it survives ``DeviceDriver/reboot()``.
    public let store = InMemoryStore()

    @exclusivity(unchecked) var core: BackgroundSystem
    @exclusivity(unchecked) var queue = Heap<Job>()
    @exclusivity(unchecked) var nextSequence: UInt64 = 0
    @exclusivity(unchecked) var jobsThisInstant = 0
    @exclusivity(unchecked) var armedWakeup: Instant?
    var installed: [InstalledApp] = []
    @exclusivity(unchecked) var processes: [AppID: AppProcess] = [:]
    var nextProcessSerial = 0
    /// The expiration handler of the begin being answered, for its `.assertionDenied`.
    var deniedHandler: (@MainActor @Sendable () -> Void)?
    /// The process whose code is running now, if any.
    @exclusivity(unchecked) var currentProcess: AppProcess?
    /// Calls from app code on other threads, applied at the simulator's next step.
    lazy var inbox = CallInbox(simulator: self, owner: faultOwner)
    /// The application whose main-queue turn is open (see `UIApplication.markMainQueueTurn`).
    @exclusivity(unchecked) var mainQueueTurn: UIApplication?
    /// Whether app code may use the main queue and threads of its own: app turns are marked in
    /// the main queue (so blocks app code queues there run as that app), and what the apps'
    /// threads read without waiting is published (the time, each process's ``ProcessView``).
    /// Scenario runs, whose apps do neither, turn it off.
    @exclusivity(unchecked) var servesAppThreads = true
    /// Whether a completed download is handed to app code as a real file on disk (a sparse one
    /// of its length), which app code may open; else the file is kept in memory (see
    /// `TransferFiles`). Scenario runs, whose apps open no file, turn it off.
    var writesDownloadedFiles = true
    var foregroundApp: AppID?
    /// Apps running in the background (not suspended): the battery's background workers.
    @exclusivity(unchecked) var backgroundApps: Set<AppID> = []
    @exclusivity(unchecked) var lastBudgetSample: [AppID: BudgetSample] = [:]
    @exclusivity(unchecked) var deviceState: DeviceState
    @exclusivity(unchecked) var battery: BatteryClock
    @exclusivity(unchecked) var idleGeneration: UInt64 = 0
    var autoLowPowerArmed = true
    /// Per-app Background App Refresh switches changed while the phone was off.
    var refreshSettingsWhileOff: [BackgroundRefreshSetting] = []
    @exclusivity(unchecked) var checker: InvariantChecker
    /// Every task run, in the order they started.
    var runRecords: [TaskRunRecord] = []
    /// Where the current system's runs are in ``runRecords`` (run identifiers start again after a reboot).
    var runIndex: [TaskRunID: Int] = [:]
    var customInvariants: [(name: String, check: @MainActor (Simulator) -> String?)] = []
    /// The transfer engine, once an app used a background session or the network was set up.
    var transferEngine: TransferSimulation?

    /// Creates a simulator with no apps, at T+0.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.onFault = Self.defaultOnFault
        self.faultOwner = UnhandledFaultRecorder.currentTest
        self.random = SplitMix64(seed: configuration.seed)
        self.deviceState = configuration.device
        self.core = BackgroundSystem(policy: configuration.policy, device: configuration.device.conditions)
        self.battery = BatteryClock(level: configuration.device.batteryLevel)
        self.checker = InvariantChecker(policy: configuration.policy, enabled: configuration.checksInvariants)
        refreshBattery()
        if deviceState.isLocked && !deviceState.isIdle { scheduleIdle() }
        if !deviceState.backgroundAppRefresh { send(.setBackgroundRefresh(.systemSwitch(false))) }
        LiveSimulators.add(inbox)
    }

    /// A finished simulator ends the processes still running: their handlers, tasks and delegates
    /// often hold the process (as app code does), and would otherwise keep it alive forever.
    isolated deinit {
        reportHeldFaultsAtTheEnd()
        LiveSimulators.remove(inbox)
        inbox.close()
        for process in processes.values { process.end() }
    }

    /// The wall-clock date of an instant on the simulator's timeline.
    public func date(of instant: Instant) -> Date {
        configuration.start.addingTimeInterval(instant.seconds)
    }

    /// The violations found so far (empty when invariants are not checked).
    public var violations: [InvariantViolation] { checker.violations }

    // MARK: Time

    /// Moves time forward by `duration`, running everything that falls due on the way, each at
    /// its own instant.
    public func advance(by duration: Duration) {
        run(until: now + duration)
    }

    /// Moves time forward to `instant`, running everything that falls due on the way. Time
    /// never goes backwards: an instant in the past runs what is due now.
    public func run(until instant: Instant) {
        while step(until: instant) != nil {}
        now = max(now, instant)
        publishTime()
        closeMainQueueTurn()
    }

    /// Runs the next piece of work due by `instant`, after the calls app code made from other
    /// threads meanwhile. Returns what ran, or `nil` when nothing is due (or the run halted).
    @discardableResult
    func step(until instant: Instant) -> Job.Work? {
        if inbox.hasCalls { inbox.drain(into: self) }
        if !heldFaults.isEmpty { reportHeldFaults() }
        guard halted == nil, let next = queue.min, next.at <= instant else { return nil }
        let job = queue.removeMin()
        if job.at > now {
            now = job.at
            jobsThisInstant = 0
            publishTime()
        }
        jobsThisInstant += 1
        if jobsThisInstant > Self.maximumJobsPerInstant {
            halt(
                "more than \(Self.maximumJobsPerInstant) pieces of work at \(now): the system and the apps keep each other busy"
            )
            return nil
        }
        execute(job)
        return job.work
    }

    /// How much work may happen at one instant before the run is declared stuck.
    public static let maximumJobsPerInstant = 100_000

    /// Why the run stopped early (a livelock), or `nil` while it runs normally. Once halted,
    /// time still moves but nothing more happens.
    @exclusivity(unchecked) public private(set) var halted: String?

    private func halt(_ reason: String) {
        halted = reason
        checker.add(InvariantViolation(.timeMovesOn, reason, at: now))
        flushViolations()
    }

    /// Runs everything due now without moving time.
    public func runPending() {
        run(until: now)
    }

    /// Runs `work` on the main actor `delay` from now, in virtual time.
    ///
    /// Called from app code, the work belongs to that app's process: it waits while the
    /// process is suspended, and is dropped if the process ends first. Called from a test, it
    /// is the test's own work (user or device actions at a later time).
    public func after(_ delay: Duration, _ work: @escaping @MainActor () -> Void) {
        if let process = currentProcess {
            schedule(at: now + delay, .app(process, work))
        } else {
            schedule(at: now + delay, .driver(work))
        }
    }

    /// Adds a note to the event log.
    public func note(_ text: String) {
        record(.note(text))
    }

    // MARK: Events

    /// Hands an event to the core; with ``Configuration/encodesMessages``, the event and the
    /// answer each cross the encoding boundary as bytes.
    private func exchange(_ event: Event, into effects: inout [Effect]) throws(BackgroundSystemError) -> Reply? {
        guard configuration.encodesMessages else { return try core.handle(event, at: now, into: &effects) }
        guard let received = EncodingBoundary.cross(event) else { return nil }
        let reply = try core.handle(received, at: now, into: &effects)
        guard let answer = EncodingBoundary.cross(reply: reply, effects: effects) else { return nil }
        encodedMessageCount += 2
        effects = answer.effects
        return answer.reply
    }

    /// Hands an event to the system and carries out its effects.
    @discardableResult
    func send(_ event: Event) -> Reply? {
        guard deviceState.isOn else {
            record(.note("the device is off: \(event) not delivered"))
            return nil
        }
        var effects: [Effect] = []
        systemEventCount += 1
        if configuration.recordsSystemEvents { systemEvents.append((now, event)) }
        let reply: Reply?
        do {
            reply = try exchange(event, into: &effects)
        } catch {
            record(.note("the system refused \(event): \(error)"))
            return nil
        }
        checker.observe(event, reply: reply, effects, core: &core, at: now)
        if let reply, let app = event.app { record(.reply(app, reply)) }
        perform(effects)
        if servesAppThreads, let app = event.app, let process = processes[app] { publish(process) }
        checkCustomInvariants()
        flushViolations()
        syncWakeup()
        sampleBudgets()
        refreshBattery()
        return reply
    }

    /// Adds a rule of your own, checked after every event like the built-in invariants.
    ///
    /// ```swift
    /// simulator.addInvariant("no task on cellular") { simulator in
    ///     let running = simulator.taskRuns.contains { $0.outcome == nil }
    ///     return running && simulator.deviceNow.network == .cellular ? "a task is running on cellular" : nil
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: Named in the violation.
    ///   - check: Returns a description of what is wrong, or `nil` when the rule holds.
    public func addInvariant(_ name: String, _ check: @escaping @MainActor (Simulator) -> String?) {
        customInvariants.append((name, check))
    }

    private func checkCustomInvariants() {
        guard configuration.checksInvariants else { return }
        for invariant in customInvariants {
            guard let problem = invariant.check(self) else { continue }
            checker.add(InvariantViolation(.custom, "\(invariant.name): \(problem)", at: now))
        }
    }

    func record(_ kind: SimulationEvent.Kind) {
        events.append(SimulationEvent(at: now, kind: kind))
    }

    func flushViolations() {
        for violation in checker.takeNew() { record(.violation(violation)) }
    }

    private func syncWakeup() {
        guard let deadline = core.nextDeadline else {
            armedWakeup = nil
            return
        }
        guard deadline != armedWakeup else { return }
        armedWakeup = deadline
        schedule(at: deadline, .wakeCore)
    }

    /// Records each background app's remaining time when it changes course.
    private func sampleBudgets() {
        guard !backgroundApps.isEmpty else { return }
        for app in backgroundApps.sorted() {
            guard let sample = Self.budgetSample(of: app, in: &core, at: now) else { continue }
            guard lastBudgetSample[app] != sample else { continue }
            lastBudgetSample[app] = sample
            record(.budget(app, remaining: sample.remaining, depleting: sample.depleting))
        }
    }

    /// The app's remaining time and whether it goes down, read from the core in place (`inout`:
    /// by value, the class's stored core was copied whole after every event).
    private static func budgetSample(of app: AppID, in core: inout BackgroundSystem, at now: Instant) -> BudgetSample? {
        guard let remaining = core.backgroundTimeRemaining(of: app, at: now) else { return nil }
        return BudgetSample(remaining: remaining, depleting: core.holdsAssertions(app))
    }
}
