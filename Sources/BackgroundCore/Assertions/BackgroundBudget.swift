/// An app's background time: how much is left, and whether it is ticking.
///
/// The budget belongs to the app, not to each assertion (R1.6), ticks only while the app is in
/// the background holding at least one assertion (R1.7), and is refilled each time the app
/// enters the background or is resumed there.
struct BackgroundBudget: Sendable, Hashable {
    /// What was left when ticking last stopped (or the full budget after a refill).
    private(set) var remainingWhenStopped: Duration
    /// When ticking started, if it is ticking.
    private(set) var tickingSince: Instant?
    /// Whether this budget's expiration handlers have already been called.
    var expirationStarted = false

    init(full: Duration) {
        self.remainingWhenStopped = full
    }

    var isTicking: Bool { tickingSince != nil }

    /// The time left at `now`, never negative.
    func remaining(at now: Instant) -> Duration {
        guard let since = tickingSince else { return remainingWhenStopped }
        return max(.zero, remainingWhenStopped - (now - since))
    }

    /// When the budget runs out, if it is ticking.
    var endsAt: Instant? { tickingSince.map { $0 + remainingWhenStopped } }

    mutating func startTicking(at now: Instant) {
        guard tickingSince == nil else { return }
        tickingSince = now
    }

    mutating func stopTicking(at now: Instant) {
        guard tickingSince != nil else { return }
        remainingWhenStopped = remaining(at: now)
        tickingSince = nil
    }

    mutating func refill(_ full: Duration) {
        remainingWhenStopped = full
        tickingSince = nil
        expirationStarted = false
    }
}

/// An expiration in progress: handlers are called one at a time, in begin order.
struct ExpirationRun: Sendable, Hashable {
    /// When the first handler was called; the total time limit counts from here.
    let startedAt: Instant
    /// Handlers still to call, in begin order.
    var pending: [AssertionID]
    /// The handler running now, and when the watchdog ends the app if it has not returned.
    var current: AssertionID?
    /// The running handler's assertion name, kept for the report even if the handler ends it.
    var currentName = ""
    var currentDeadline: Instant?
}

/// Main-actor callbacks the system waits for before it may suspend an app in the background.
struct PendingCallbacks: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// `applicationDidEnterBackground(_:)` and the notification's observers.
        case didEnterBackground
        /// The app's launch code (or its resume) after the system woke it in the background.
        case backgroundWake
    }

    let kind: Kind
    let deadline: Instant
}
