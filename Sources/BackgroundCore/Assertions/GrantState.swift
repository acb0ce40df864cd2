/// What an app's runtime needs to answer `beginBackgroundTask` itself, without asking the
/// system: the state the system pushes to an app across a process boundary
/// (docs/core-contract.md, "No round trip for the common case").
///
/// The system makes one with ``BackgroundSystem/grantState(of:at:)`` when an app connects and
/// again whenever any of it changes; the app's runtime decides a begin with
/// ``verdict(at:held:)``, which is the core's own grant rule (``GrantRule``).
public struct GrantState: Sendable, Hashable, Codable {
    /// The app's process this state is for.
    public var incarnation: Incarnation
    /// The identifier the app's next assertion takes; the app allocates from here, in order.
    public var nextAssertionID: AssertionID
    /// The app's lifecycle state.
    public var lifecycleState: AppLifecycleState
    /// The background time left at ``measuredAt``.
    public var budgetRemaining: Duration
    /// Whether the budget was running down at ``measuredAt`` (then it ends at
    /// `measuredAt + budgetRemaining`).
    public var budgetTicking: Bool
    /// Whether the budget's expiration has begun (no begin is granted until it is refilled).
    public var budgetExpiring: Bool
    /// When this state was read, on the system's clock (the boot clock on a real machine).
    public var measuredAt: Instant
    /// The policy's numbers the rule reads.
    public var rule: GrantRule

    /// Creates a pushed state.
    public init(
        incarnation: Incarnation,
        nextAssertionID: AssertionID,
        lifecycleState: AppLifecycleState,
        budgetRemaining: Duration,
        budgetTicking: Bool,
        budgetExpiring: Bool,
        measuredAt: Instant,
        rule: GrantRule
    ) {
        self.incarnation = incarnation
        self.nextAssertionID = nextAssertionID
        self.lifecycleState = lifecycleState
        self.budgetRemaining = budgetRemaining
        self.budgetTicking = budgetTicking
        self.budgetExpiring = budgetExpiring
        self.measuredAt = measuredAt
        self.rule = rule
    }

    /// `UIApplication.backgroundTimeRemaining` at `now`, from this state: the one rule
    /// (``backgroundTimeRemaining(state:budget:)``).
    public func backgroundTimeRemaining(at now: Instant) -> Duration? {
        Self.backgroundTimeRemaining(state: lifecycleState) { budgetRemaining(at: now) }
    }

    /// `UIApplication.backgroundTimeRemaining`: `nil` in the foreground (Apple's
    /// `.greatestFiniteMagnitude`), zero without a running process, else the budget left. The
    /// one rule, for the core's own answer and every app-side view of a pushed state.
    public static func backgroundTimeRemaining(
        state: AppLifecycleState,
        budget: () -> Duration
    ) -> Duration? {
        if state.isForeground { return nil }
        if !state.isRunning { return .zero }
        return budget()
    }

    /// The background time left at `now`, as far as the app can know it.
    public func budgetRemaining(at now: Instant) -> Duration {
        guard budgetTicking, now > measuredAt else { return budgetRemaining }
        return max(.zero, budgetRemaining - (now - measuredAt))
    }

    /// The grant rule applied to this state, for an app holding `held` assertions.
    public func verdict(at now: Instant, held: Int) -> GrantRule.Verdict {
        rule.verdict(
            state: lifecycleState,
            budgetRemaining: budgetRemaining(at: now),
            budgetExpiring: budgetExpiring,
            held: held
        )
    }
}

/// The grant rule, written once: whether an app may begin an assertion, from state the system
/// can push to the app (its lifecycle state, its budget) and three of the policy's numbers.
///
/// The core uses it for every begin (``BackgroundSystem/handle(_:at:into:)`` and the foreground
/// fast path), and an app's runtime across a process boundary uses it on the pushed
/// ``GrantState``.
public struct GrantRule: Sendable, Hashable, Codable {
    /// ``SystemPolicy/grantsAssertions``.
    public var grantsAssertions: Bool
    /// ``SystemPolicy/expirationLeadTime``: no begin is granted this close to the budget's end.
    public var expirationLeadTime: Duration
    /// ``SystemPolicy/maximumOutstandingAssertions``.
    public var maximumOutstandingAssertions: Int

    /// The rule of a policy.
    public init(_ policy: SystemPolicy) {
        self.grantsAssertions = policy.grantsAssertions
        self.expirationLeadTime = policy.expirationLeadTime
        self.maximumOutstandingAssertions = policy.maximumOutstandingAssertions
    }

    /// What a begin gets.
    public enum Verdict: Sendable, Hashable {
        /// Granted.
        case grant
        /// Not granted, for this reason: `.invalid`, and the expiration handler is called.
        case deny(String)
        /// One more than ``SystemPolicy/maximumOutstandingAssertions``: the watchdog ends the app.
        case tooMany
    }

    /// The rule: the app must be running; in the background its budget must not be expiring
    /// (nor within ``expirationLeadTime`` of its end); and it may hold at most
    /// ``maximumOutstandingAssertions``.
    @inline(__always)
    public func verdict(
        state: AppLifecycleState,
        budgetRemaining: @autoclosure () -> Duration,
        budgetExpiring: @autoclosure () -> Bool,
        held: Int
    ) -> Verdict {
        guard grantsAssertions else { return .deny("background execution is not available on this system") }
        guard state.isRunning else { return .deny("the app is \(state)") }
        if state == .background {
            if budgetExpiring() || budgetRemaining() <= expirationLeadTime {
                return .deny("no background time remaining")
            }
        }
        return held < maximumOutstandingAssertions ? .grant : .tooMany
    }
}
