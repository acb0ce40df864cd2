import HeapModule

/// The background execution system's brain: a pure state machine driven by events.
///
/// It decides everything iOS decides about background execution (app lifecycle, assertions,
/// budgets, expiration, the watchdog, termination reports, Background App Refresh status) as a
/// function of its state, the event and the time the event happened. It never reads a clock,
/// sleeps, starts a thread or does I/O: the shells feed it events and carry out the effects it
/// returns, so the same rules run on the real clock in a service and on virtual time in tests.
///
/// ```swift
/// var system = BackgroundSystem(policy: .iOS)
/// let app: AppID = "com.example.notes"
/// try system.handle(.launch(app, .foreground), at: .zero)
/// try system.handle(.activate(app), at: .zero)
/// var effects: [Effect] = []
/// let reply = try system.handle(
///     .beginAssertion(app, name: "Upload", origin: CallSite(), hasExpirationHandler: true),
///     at: .seconds(1), into: &effects)
/// // reply == .granted(AssertionID(rawValue: 1)), effects == []
/// ```
///
/// In the examples, `.seconds(1)` is ``Instant/seconds(_:)-(BinaryInteger)``.
///
/// Time must not go backwards: an event stamped earlier than the previous one is treated as
/// happening at the previous one's time.
public struct BackgroundSystem: Sendable {
    /// Creates a system with no apps, in the given device conditions.
    public init(policy: SystemPolicy = .iOS, device: DeviceConditions) {
        self.init(policy: policy)
        self.deviceConditions = device
    }

    /// The numbers in force.
    public let policy: SystemPolicy
    /// The policy's grant rule, kept apart so a begin reads three numbers, not the policy.
    let grantRule: GrantRule

    /// The records, noting which ones change (for the deadline index and the debug checks).
    var apps = AppTable()
    var appIndex: [AppID: Int] = [:]
    var device = DeviceRefreshSettings()
    var deviceConditions = DeviceConditions()
    var queue = TaskQueue()
    var parkedWakes = Heap<ParkedWake>()
    var slotLines = SlotLines()
    var busyApps: Set<Int> = []
    var continuedRunning = 0
    var runCount = 0
    /// The earliest per-app deadline (budgets, watchdogs, task runs), cached.
    var appDeadline: Instant?
    /// Each app's next deadline, ordered; updated for the records that changed.
    var deadlineIndex = DeadlineIndex()
    #if DEBUG
    /// Events checked so far: every ``fullCheckInterval``-th gets the full check.
    var eventsChecked = 0
    #endif
    /// The record index last looked up.
    var lastLookup: Int?
    /// Apps in the background: with ``busyApps``, the only ones that can have deadlines.
    var backgroundApps: Set<Int> = []
    /// The memory pressure last reported (``Event/memoryPressure(_:)``).
    var memoryPressure = MemoryPressure.normal
    /// The latest instant the system has been told about.
    public private(set) var now: Instant = .zero
    /// The wake-up last requested from the shell, if any.
    private(set) var requestedWakeup: Instant?
    /// The earliest instant at which something falls due, if anything will.
    public internal(set) var nextDeadline: Instant?
    var incidentCount = 0
    /// How many times the system has looked at one app's records in its searches: the
    /// scheduler examining an app's released requests, and the deadline search visiting an app.
    ///
    /// A measure of work, not of time: tests and benchmarks read it to show that what one event
    /// costs does not grow with the number of apps installed. No decision depends on it.
    public internal(set) var appsVisited = 0
    /// Recent runs per request identifier and the device's condition intervals (``DecisionHistory``).
    var history = DecisionHistory()

    /// Creates a system with no apps.
    public init(policy: SystemPolicy = .iOS) {
        self.policy = policy
        self.grantRule = GrantRule(policy)
    }

    /// Moves the system's clock to `now`, never back, without running anything due.
    mutating func moveClock(to now: Instant) {
        self.now = max(now, self.now)
    }

    /// Handles one event and returns the effects to carry out, in order.
    ///
    /// Deadlines that fell due strictly before `now` (budget ends, handler watchdogs) are
    /// processed first, each at its own instant, and the event is judged against the state they
    /// leave. Then the event is applied, and then deadlines due at `now` itself: an app that
    /// ends its task at the very instant its budget runs out is given the benefit of the doubt.
    ///
    /// - Throws: ``BackgroundSystemError`` if the event is not allowed in the app's state (an
    ///   illegal lifecycle transition). Nothing changes then, not even the overdue deadlines,
    ///   which are processed with the next event or tick.
    @discardableResult
    public mutating func handle(_ event: Event, at now: Instant) throws(BackgroundSystemError) -> [Effect] {
        var effects: [Effect] = []
        try handle(event, at: now, into: &effects)
        return effects
    }

    /// Handles one event, appending its effects to `effects`; for shells that reuse a buffer.
    ///
    /// - Returns: The answer to the app call the event reports (a begin, a register, a submit),
    ///   or `nil` for events that answer nothing.
    ///
    /// On a throw, nothing is appended and nothing changes.
    @discardableResult
    public mutating func handle(
        _ event: Event,
        at now: Instant,
        into effects: inout [Effect]
    )
        throws(BackgroundSystemError) -> Reply?
    {
        let now = max(now, self.now)
        var reply: Reply?
        if nextDeadline.map({ $0 > now }) ?? true, handleInForeground(event, at: now, into: &effects, reply: &reply) {
            self.now = now
            #if DEBUG
            let violations = checkInvariantsAfterEvent()
            assert(violations.isEmpty, "BackgroundSystem invariants violated after \(event) at \(now): \(violations)")
            #endif
            return reply
        }
        try runOverdueDeadlines(judging: event, before: now, into: &effects)
        self.now = now
        reply = apply(event, at: now, into: &effects)
        runDeadlines(through: now, into: &effects)
        let effectCount = effects.count
        dispatch(at: now, into: &effects)
        if effects.count != effectCount { appDeadline = searchDeadlines()?.at }  // runs may have started
        updateWakeup(into: &effects)
        #if DEBUG
        let violations = checkInvariantsAfterEvent()
        assert(violations.isEmpty, "BackgroundSystem invariants violated after \(event) at \(now): \(violations)")
        #endif
        return reply
    }

    /// The fast path: beginning or ending an assertion while the app is in the foreground
    /// changes no deadline and nothing the scheduler looks at, so the event needs none of the
    /// deadline, dispatch and wake-up work. Returns `false` for anything else, which then takes
    /// the full path.
    private mutating func handleInForeground(
        _ event: Event,
        at now: Instant,
        into effects: inout [Effect],
        reply: inout Reply?
    ) -> Bool {
        switch event {
        case .beginAssertion(let app, let name, let origin, let hasHandler):
            guard
                let id = beginAssertionInForeground(
                    app,
                    name: name,
                    origin: origin,
                    hasExpirationHandler: hasHandler,
                    at: now
                )
            else { return false }
            reply = .granted(id)
            return true
        case .endAssertion(let app, let id):
            guard let ended = endAssertionInForeground(app, id, at: now) else { return false }
            if !ended { effects.append(.log(LogRecord(.error, app: app, Self.unknownAssertionMessage(id)))) }
            return true
        default:
            return false
        }
    }

    /// ``handle(_:at:)`` of `.beginAssertion` for an app in the foreground, without building
    /// the event or its effects: the hot path of `beginBackgroundTask`.
    ///
    /// - Returns: The granted identifier, exactly as `handle` would grant it; `nil` when the
    ///   fast path does not apply (the app is not in the foreground, a deadline is due, the
    ///   assertion would be refused), and the caller must send the event instead.
    public mutating func beginAssertionInForeground(
        _ app: AppID,
        name: String,
        origin: CallSite,
        hasExpirationHandler: Bool,
        at instant: Instant
    ) -> AssertionID? {
        let now = max(instant, self.now)
        guard nextDeadline.map({ $0 > now }) ?? true, let index = lookup(app), apps[index].state.isForeground,
            case .grant = assertionVerdict(index, at: now)
        else { return nil }
        self.now = now
        return apps[index].ledger.begin(name: name, origin: origin, at: now, hasExpirationHandler: hasExpirationHandler)
    }

    /// ``handle(_:at:)`` of `.endAssertion` for an app in the foreground, without building the
    /// event or its effects: the hot path of `endBackgroundTask`.
    ///
    /// - Returns: `true` if it ended, `false` if the identifier was unknown or already ended
    ///   (the caller logs ``unknownAssertionMessage(_:)``), `nil` when the fast path does not
    ///   apply and the caller must send the event instead.
    public mutating func endAssertionInForeground(_ app: AppID, _ id: AssertionID, at instant: Instant) -> Bool? {
        let now = max(instant, self.now)
        guard nextDeadline.map({ $0 > now }) ?? true, let index = lookup(app), apps[index].state.isForeground else {
            return nil
        }
        self.now = now
        if apps[index].ledger.remove(id) { return true }
        return apps[index].ledger.endRevoked(id)  // revoked at its begin: its end is expected
    }

    /// The record index of an app, remembering the last one asked for (shells serve one app,
    /// or a few, so most lookups compare one identifier instead of hashing it).
    mutating func lookup(_ app: AppID) -> Int? {
        if let last = lastLookup, apps[last].id.bundleIdentifier == app.bundleIdentifier { return last }
        lastLookup = appIndex[app]
        return lastLookup
    }

    private mutating func apply(_ event: Event, at now: Instant, into effects: inout [Effect]) -> Reply? {
        switch event {
        case .beginAssertion(let app, let name, let origin, let hasHandler):
            return beginAssertion(app, name: name, origin: origin, hasHandler: hasHandler, at: now, into: &effects)
        case .assertionBegun(let app, let id, let name, let origin, let hasHandler):
            let begin = AllocatedBegin(id: id, name: name, origin: origin, hasHandler: hasHandler)
            return assertionBegun(app, begin, at: now, into: &effects)
        case .registerTaskHandler(let app, let identifier):
            return registerTaskHandler(app, identifier: identifier, at: now, into: &effects)
        case .submitTaskRequest(let app, let request): return submit(app, request, at: now, into: &effects)
        case .beginModeActivity(let app, let mode): return beginModeActivity(app, mode, at: now, into: &effects)
        default:
            applyAnswerless(event, at: now, into: &effects)
            return nil
        }
    }

    private mutating func applyAnswerless(_ event: Event, at now: Instant, into effects: inout [Effect]) {
        switch event {
        case .launch(let app, let kind): launch(app, kind, at: now, into: &effects)
        case .activate(let app): transition(app, to: .active, at: now, into: &effects)
        case .deactivate(let app): transition(app, to: .inactive, at: now, into: &effects)
        case .enterBackground(let app): enterBackground(app, at: now, into: &effects)
        case .enterForeground(let app): enterForeground(app, at: now, into: &effects)
        case .resumeInBackground(let app): resumeInBackground(app, at: now, into: &effects)
        case .didEnterBackgroundReturned(let app): callbacksReturned(app, .didEnterBackground, at: now, into: &effects)
        case .backgroundWakeReturned(let app): callbacksReturned(app, .backgroundWake, at: now, into: &effects)
        case .beginAssertion, .assertionBegun, .registerTaskHandler, .submitTaskRequest, .beginModeActivity:
            break  // answered by apply
        case .endModeActivity(let app, let mode): endModeActivity(app, mode, at: now, into: &effects)
        case .remoteNotification(let app, let payload):
            receiveRemoteNotification(app, payload: payload, at: now, into: &effects)
        case .endAssertion(let app, let id): endAssertion(app, id, at: now, into: &effects)
        case .expirationHandlerReturned(let app, let id): expirationHandlerReturned(app, id, at: now, into: &effects)
        case .terminate(let app, let reason): terminate(app, reason, at: now, into: &effects)
        case .setBackgroundRefresh(let setting): setBackgroundRefresh(setting, at: now, into: &effects)
        case .tick: break
        case .install(let manifest): install(manifest, at: now, into: &effects)
        case .finishLaunching(let app): finishLaunching(app, at: now, into: &effects)
        case .cancelTaskRequest(let app, let identifier): cancel(app, identifier: identifier, into: &effects)
        case .cancelAllTaskRequests(let app): cancelAll(app, into: &effects)
        case .completeTask(let app, let id, let success):
            completeTask(app, id, success: success, at: now, into: &effects)
        case .reportTaskProgress(let app, let id, let fraction): reportProgress(app, id, fraction: fraction, at: now)
        case .userCancelledTask(let app, let id):
            if let index = appIndex[app] { expireNow(index, id, at: now, into: &effects) }
        case .setDevice(let conditions): setDevice(conditions, at: now, into: &effects)
        case .memoryPressure(let pressure): reclaimMemory(pressure, at: now, into: &effects)
        case .setMinimumBackgroundFetchInterval(let app, let interval):
            setFetchInterval(app, interval, at: now, into: &effects)
        case .simulateLaunch(let app, let identifier):
            simulateLaunch(app, identifier: identifier, at: now, into: &effects)
        case .simulateExpiration(let app, let identifier):
            simulateExpiration(app, identifier: identifier, at: now, into: &effects)
        case .restore(let saved): restore(saved, at: now, into: &effects)
        }
    }

    // MARK: Queries

    /// The app's lifecycle state; `notRunning` for an app the system has never seen.
    public func state(of app: AppID) -> AppLifecycleState {
        appIndex[app].map { apps[$0].state } ?? .notRunning
    }

    /// Whether the user force-quit the app and has not opened it since: the system does not
    /// launch it in the background, and nothing but the user brings it back (S10).
    public func isForceQuit(_ app: AppID) -> Bool {
        appIndex[app].map { apps[$0].forceQuit } ?? false
    }

    /// The app's current (or last) process: 0 before its first launch, then one more per launch.
    public func incarnation(of app: AppID) -> Incarnation {
        appIndex[app].map { apps[$0].incarnation } ?? Incarnation(rawValue: 0)
    }

    /// The identifier the app's next granted assertion gets. Identifiers go on increasing across
    /// the app's processes, so an app-side runtime told this value at launch can name its
    /// assertions without asking (docs/core-contract.md).
    public func nextAssertionID(of app: AppID) -> AssertionID {
        appIndex[app].map { apps[$0].ledger.nextID } ?? AssertionID(rawValue: 1)
    }

    /// The app's outstanding assertions, oldest first.
    public func assertions(of app: AppID) -> [Assertion] {
        appIndex[app].map { apps[$0].ledger.inBeginOrder } ?? []
    }

    /// Whether the app holds a background task assertion: `!assertions(of:).isEmpty`, without
    /// building the list.
    public func holdsAssertions(_ app: AppID) -> Bool {
        appIndex[app].map { !apps[$0].ledger.isEmpty } ?? false
    }

    /// The app's remaining background time at `now`, or `nil` while it is in the foreground
    /// (where Apple reports `Double.greatestFiniteMagnitude`, R1.9).
    public func backgroundTimeRemaining(of app: AppID, at now: Instant) -> Duration? {
        guard let index = appIndex[app] else { return nil }
        return GrantState.backgroundTimeRemaining(state: apps[index].state) {
            apps[index].budget.remaining(at: max(now, self.now))
        }
    }

    /// Every app the system knows, in the order it first saw them.
    public var knownApps: [AppID] { apps.map(\.id) }

    // MARK: Records

    mutating func recordIndex(for app: AppID, at instant: Instant? = nil) -> Int {
        if let index = appIndex[app] { return index }
        let record = AppRecord(
            id: app,
            budget: policy.backgroundTimeBudget,
            dailyBudget: policy.scheduling.dailyBackgroundBudget,
            at: instant ?? now
        )
        apps.append(record)
        appIndex[app] = apps.count - 1
        return apps.count - 1
    }

    /// Changes an app's state, keeping ``backgroundApps`` in step.
    mutating func setState(_ index: Int, _ state: AppLifecycleState) {
        apps[index].state = state
        if state == .background { backgroundApps.insert(index) } else { backgroundApps.remove(index) }
    }

    mutating func nextIncident() -> Int {
        incidentCount += 1
        return incidentCount
    }

    private mutating func updateWakeup(into effects: inout [Effect]) {
        let scheduling = nextSchedulingWakeup()
        switch (appDeadline, scheduling) {
        case (let a?, let b?): nextDeadline = min(a, b)
        default: nextDeadline = appDeadline ?? scheduling
        }
        guard nextDeadline != requestedWakeup else { return }
        requestedWakeup = nextDeadline
        effects.append(nextDeadline.map { .scheduleWakeup(at: $0) } ?? .cancelWakeup)
    }
}
