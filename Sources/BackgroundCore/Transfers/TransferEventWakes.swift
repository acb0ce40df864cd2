/// iOS's rule for a background session's events that no process of the app can hear (reference
/// §5.3, §5.6): the system launches the app in the background, or resumes it, once its relaunch
/// delay allows and never after a force quit; after the app's launch callbacks it calls
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` once for each session
/// that woke it; and it keeps the app awake until every one of those completion handlers is
/// called, or until its time for them runs out.
///
/// A value that takes what happened and returns what to do, as ``BackgroundSystem`` does: it
/// reads no clock (every input carries its instant), and it does not know how a shell launches
/// a process or keeps it awake. Each shell (the daemon, the simulator) carries out its
/// ``Action``s and arms one timer at ``nextDeadline``. The relaunch delay itself is
/// ``TransferQueue``'s: a shell passes the instant ``TransferQueue/relaunchTime(of:readyAt:)``
/// gives, and tells the queue ``TransferQueue/relaunched(_:at:)`` when it carries out a ``Action/wake(_:sessions:launching:)``.
///
/// The per-app steps, in order:
///
/// 1. ``eventsWaiting(_:session:relaunchAt:)``: a session that sends launch events has events no
///    process heard. The app's wake is armed for `relaunchAt` (unless one is armed or under way).
/// 2. ``tick(at:states:)`` at that instant: a suspended or ended app is woken
///    (``Action/wake(_:sessions:launching:)``) for every session still waiting, in name order; a
///    running background app is asked at once (``Action/handleEvents(_:session:)``); a
///    foreground app hears the events when it attaches its sessions, so nothing is done.
/// 3. ``launchCallbacksReturned(_:)``: the woken app's launch callbacks returned, so it gets
///    `handleEvents` for each session, and its wake is held open (the shell must not let it be
///    suspended) until step 4.
/// 4. ``handlerCalled(_:session:)`` for each, or the time limit (``tick(at:states:)``): the wake
///    ends (``Action/endWake(_:timedOut:)``).
public struct TransferEventWakes: Sendable, Hashable {
    /// What a shell does.
    public enum Action: Sendable, Hashable {
        /// Launch the app in the background (`launching`: it has no process) or resume it from
        /// suspension, for these sessions' events. `handleEvents` waits for its launch callbacks
        /// (``TransferEventWakes/launchCallbacksReturned(_:)``).
        case wake(AppID, sessions: [String], launching: Bool)
        /// Call `application(_:handleEventsForBackgroundURLSession:completionHandler:)` for the
        /// session.
        case handleEvents(AppID, session: String)
        /// The app's wake for events is over: every completion handler was called, or its time
        /// ran out (`timedOut`). It may be suspended again.
        case endWake(AppID, timedOut: Bool)
    }

    /// An app's wake for its sessions' events.
    struct Wake: Sendable, Hashable {
        /// Woken for these sessions; `handleEvents` follows the launch callbacks.
        var launchedFor: [String]
        /// `handleEvents` asked, completion handler not called yet.
        var handling: Set<String> = []
        /// Whether the wake holds the app awake (it was launched or resumed for the events).
        var holdsApp: Bool
        /// When the wake ends whatever the app did.
        var endsAt: Instant?
    }

    struct App: Sendable, Hashable {
        /// Sessions that send launch events and have events no process heard.
        var waiting: Set<String> = []
        /// When the app is to be woken for them.
        var wakeAt: Instant?
        var wake: Wake?

        var isIdle: Bool { waiting.isEmpty && wakeAt == nil && wake == nil }
    }

    /// How long a wake for events stays open at most, by default: 15 s (**ours**; Apple gives
    /// about 30 s), below the core's 20 s ``SystemPolicy/backgroundWakeTimeLimit``, so an app that
    /// never calls its completion handler is let go, then suspended, not ended by the watchdog.
    public static let defaultTimeLimit = Duration.seconds(15)

    /// How long a wake for events stays open at most.
    public let timeLimit: Duration
    private(set) var apps: [AppID: App] = [:]

    /// Creates the wakes of a system whose wakes for events last at most `timeLimit`.
    public init(timeLimit: Duration = Self.defaultTimeLimit) {
        self.timeLimit = timeLimit
    }

    /// The earliest instant at which ``tick(at:states:)`` has something to do.
    public var nextDeadline: Instant? {
        apps.values.reduce(nil) { earliest, app in
            [earliest, app.wakeAt, app.wake?.endsAt].compactMap { $0 }.min()
        }
    }

    /// Whether the app is awake for its sessions' events: launched or resumed for them and not
    /// done with their completion handlers.
    public func isAwake(_ app: AppID) -> Bool { apps[app]?.wake?.holdsApp ?? false }

    /// The apps with a wake armed, under way or waited for, in app order (what
    /// ``tick(at:states:)`` may ask the state of).
    public var trackedApps: [AppID] { apps.keys.sorted() }

    /// The sessions of `app` whose events wait for a wake, in name order.
    public func waitingSessions(of app: AppID) -> [String] { (apps[app]?.waiting ?? []).sorted() }

    /// A session that sends launch events has events no process of the app heard: the app is
    /// to be woken at `relaunchAt` (``TransferQueue/relaunchTime(of:readyAt:)``; nil after a
    /// force quit: nothing wakes it until the user opens it). A wake armed or under way is kept;
    /// this session joins it.
    public mutating func eventsWaiting(_ app: AppID, session: String, relaunchAt: Instant?) {
        var entry = apps[app] ?? App()
        entry.waiting.insert(session)
        if entry.wake == nil, entry.wakeAt == nil { entry.wakeAt = relaunchAt }
        apps[app] = entry
    }

    /// A process of the app heard the session's events (it attached the session): they no
    /// longer wait for a wake.
    public mutating func eventsHeard(_ app: AppID, session: String) {
        update(app) { entry in
            entry.waiting.remove(session)
            if entry.waiting.isEmpty { entry.wakeAt = nil }
        }
    }

    /// Wakes the apps whose time has come and ends the wakes whose time ran out, in app order.
    ///
    /// - Parameter states: Where each app is in its life now.
    public mutating func tick(at now: Instant, states: (AppID) -> AppLifecycleState) -> [Action] {
        var actions: [Action] = []
        for app in apps.keys.sorted() {
            guard var entry = apps[app] else { continue }
            if let wake = entry.wake, let endsAt = wake.endsAt, endsAt <= now {
                entry.wake = nil
                if wake.holdsApp { actions.append(.endWake(app, timedOut: true)) }
            }
            if let wakeAt = entry.wakeAt, wakeAt <= now {
                entry.wakeAt = nil
                if entry.wake == nil { actions += wake(app, &entry, state: states(app), at: now) }
            }
            apps[app] = entry.isIdle ? nil : entry
        }
        return actions
    }

    private func wake(_ app: AppID, _ entry: inout App, state: AppLifecycleState, at now: Instant) -> [Action] {
        let sessions = entry.waiting.sorted()
        guard !sessions.isEmpty else { return [] }
        switch state {
        case .suspended, .notRunning, .terminated:
            entry.wake = Wake(launchedFor: sessions, holdsApp: true, endsAt: now + timeLimit)
            return [.wake(app, sessions: sessions, launching: state != .suspended)]
        case .background:
            // Running, so no launch callbacks to wait for: asked at once, held by what runs it.
            entry.wake = Wake(launchedFor: [], handling: Set(sessions), holdsApp: false)
            return sessions.map { .handleEvents(app, session: $0) }
        case .active, .inactive:
            return []  // it hears them when it attaches its sessions
        }
    }

    /// The woken app's launch callbacks returned: `handleEvents` for each session that woke it.
    /// Empty if the app was not woken for events (its wake is not this one's to hold).
    public mutating func launchCallbacksReturned(_ app: AppID) -> [Action] {
        guard var wake = apps[app]?.wake, !wake.launchedFor.isEmpty else { return [] }
        let sessions = wake.launchedFor
        wake.handling.formUnion(sessions)
        wake.launchedFor = []
        apps[app]?.wake = wake
        return sessions.map { .handleEvents(app, session: $0) }
    }

    /// Whether the app was woken for events and its `handleEvents` calls wait for its launch
    /// callbacks: until then its sessions' events are held, so that `handleEvents` comes first.
    public func awaitsLaunchCallbacks(_ app: AppID) -> Bool {
        !(apps[app]?.wake?.launchedFor.isEmpty ?? true)
    }

    /// Whether `session` woke the app and its `handleEvents` waits for the launch callbacks.
    public func isWokenFor(_ app: AppID, session: String) -> Bool {
        apps[app]?.wake?.launchedFor.contains(session) ?? false
    }

    /// The app called the completion handler of the session's `handleEvents`: once none is
    /// outstanding, its wake ends.
    public mutating func handlerCalled(_ app: AppID, session: String) -> [Action] {
        guard var wake = apps[app]?.wake, wake.handling.remove(session) != nil else { return [] }
        guard wake.handling.isEmpty, wake.launchedFor.isEmpty else {
            apps[app]?.wake = wake
            return []
        }
        update(app) { $0.wake = nil }
        return wake.holdsApp ? [.endWake(app, timedOut: false)] : []
    }

    /// The shell could not keep the app awake any longer (the system's own time for it ran out
    /// first): the wake ends, with nothing left to do for it. What still waits is woken again
    /// only when more events come or the process ends.
    public mutating func wakeCutShort(_ app: AppID) {
        update(app) { $0.wake = nil }
    }

    /// The app's process ended (or was force-quit): its wake is gone with it. Sessions still
    /// waiting are to be woken at `relaunchAt` again (nil: not until the user opens the app).
    public mutating func processEnded(_ app: AppID, relaunchAt: Instant?) {
        update(app) { entry in
            entry.wake = nil
            entry.wakeAt = entry.waiting.isEmpty ? nil : relaunchAt
        }
    }

    /// The user force-quit the app: nothing wakes it for events until they open it, and what
    /// waited is cancelled with its transfers.
    public mutating func forceQuit(_ app: AppID) {
        apps[app] = nil
    }

    private mutating func update(_ app: AppID, _ change: (inout App) -> Void) {
        guard var entry = apps[app] else { return }
        change(&entry)
        apps[app] = entry.isIdle ? nil : entry
    }
}
