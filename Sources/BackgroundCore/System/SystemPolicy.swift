/// Every number the system enforces, in one place.
///
/// Defaults are the values Apple documents or its engineers state; each property's comment
/// gives the source (the keys refer to `reference/apple-background-execution.md`). Values that
/// are ours rather than Apple's say so. Other profiles are other values:
///
/// ```swift
/// var phone = BackgroundSystem(policy: .iOS)                        // 30 s, Apple's numbers
/// var service = BackgroundSystem(policy: .server(grace: .seconds(10))) // exits when done
/// ```
public struct SystemPolicy: Sendable, Hashable, Codable {
    /// What the system does once an app in the background holds no assertion.
    public enum IdleBackgroundAction: Sendable, Hashable, Codable {
        /// Suspend the app, as iOS does.
        case suspend
        /// End the process with this exit status: a service has finished its shutdown work.
        case exit(status: Int32)
    }

    /// A short name for logs and reports, such as `iOS` or `server(grace: 10.000s)`.
    public var name: String

    /// How long an app may run in the background under assertions before it must be done.
    ///
    /// The budget belongs to the app, not to each assertion, and is refilled each time the app
    /// moves to the background. Default 30 s: "On current systems you can expect about 30
    /// seconds" (Quinn, UIApplication Background Task Notes, 2021 revision, S1 in the reference;
    /// the change came with iOS 13). iOS 7–12 gave 180 s (S9), earlier systems 600 s.
    public var backgroundTimeBudget: Duration

    /// How long before the budget runs out the expiration handlers are called.
    ///
    /// Apple says only "shortly before the app's remaining background time reaches 0" (S2).
    /// **Ours:** 5 s, which leaves room for handlers limited to a few seconds in total.
    public var expirationLeadTime: Duration

    /// How long one expiration handler may run before the watchdog ends the app (`0x8badf00d`).
    ///
    /// Default 1 s: handlers must finish "in less than a second or so" (S1).
    public var expirationHandlerTimeLimit: Duration

    /// How long all expiration handlers of one expiration may take together.
    ///
    /// Apple: "a strict limit (a few seconds) on the total amount of time taken to run
    /// background task expiry handlers" (S1). **Ours:** 3 s as the reading of "a few".
    public var expirationHandlersTotalTimeLimit: Duration

    /// The most assertions an app may hold at once; one more ends it with `0xbada5e47`.
    ///
    /// Default 1000: "a hard limit … (currently about 1000 …)" introduced in iOS 11 (S1).
    public var maximumOutstandingAssertions: Int

    /// How long `applicationDidEnterBackground(_:)` may take to return.
    ///
    /// Default 5 s: the delegate "has five seconds to perform any tasks and return" (S3).
    public var didEnterBackgroundTimeLimit: Duration

    /// How long an app launched or resumed in the background may take before its callbacks return.
    ///
    /// Default 20 s: the launch watchdog's "exhausted real (wall clock) time allowance of 20.00
    /// seconds" (R1.14, observed). Resume is reported at about 10 s (unconfirmed); **ours** uses
    /// the launch figure for both.
    public var backgroundWakeTimeLimit: Duration

    /// Whether `beginBackgroundTask` can be granted at all.
    ///
    /// iOS returns `.invalid` "if running in the background is not possible" (S2); on modern
    /// systems that is "unlikely" (S1). Set to `false` to model a system without multitasking.
    public var grantsAssertions: Bool

    /// What happens when an app in the background holds no more assertions.
    public var idleBackgroundAction: IdleBackgroundAction

    /// The scheduler's limits and heuristics (BGTaskScheduler, background fetch).
    public var scheduling = SchedulingPolicy()

    /// The thresholds of memory reclaim (jetsam).
    public var memory = MemoryPolicy()

    /// Creates a policy from explicit values; prefer the profiles ``iOS`` and ``server(grace:)``.
    public init(
        name: String,
        backgroundTimeBudget: Duration,
        expirationLeadTime: Duration,
        expirationHandlerTimeLimit: Duration,
        expirationHandlersTotalTimeLimit: Duration,
        maximumOutstandingAssertions: Int,
        didEnterBackgroundTimeLimit: Duration,
        backgroundWakeTimeLimit: Duration = .seconds(20),
        grantsAssertions: Bool,
        idleBackgroundAction: IdleBackgroundAction
    ) {
        self.name = name
        self.backgroundTimeBudget = backgroundTimeBudget
        self.expirationLeadTime = expirationLeadTime
        self.expirationHandlerTimeLimit = expirationHandlerTimeLimit
        self.expirationHandlersTotalTimeLimit = expirationHandlersTotalTimeLimit
        self.maximumOutstandingAssertions = maximumOutstandingAssertions
        self.didEnterBackgroundTimeLimit = didEnterBackgroundTimeLimit
        self.backgroundWakeTimeLimit = backgroundWakeTimeLimit
        self.grantsAssertions = grantsAssertions
        self.idleBackgroundAction = idleBackgroundAction
    }

    /// Apple's current iOS numbers: a 30 s budget, suspension when the last assertion ends.
    public static let iOS = SystemPolicy(
        name: "iOS",
        backgroundTimeBudget: .seconds(30),
        expirationLeadTime: .seconds(5),
        expirationHandlerTimeLimit: .seconds(1),
        expirationHandlersTotalTimeLimit: .seconds(3),
        maximumOutstandingAssertions: 1000,
        didEnterBackgroundTimeLimit: .seconds(5),
        grantsAssertions: true,
        idleBackgroundAction: .suspend
    )

    /// iOS 7 to 12: a 180 s budget (`permittedBackgroundDuration: 180.000000` in crash logs, S9).
    /// The exact version boundaries are unconfirmed.
    public static let iOS12 = iOS.with(name: "iOS 7-12", budget: .seconds(180))

    /// A Linux service's graceful shutdown with Apple's model.
    ///
    /// Moving to the background (SIGTERM) starts a budget of `grace`; work under assertions
    /// finishes within it, expiration handlers run `min(5 s, grace / 4)` before its end and must
    /// all return within that lead (each within `min(1 s, lead)`), the process exits with status
    /// 0 when the last assertion ends, and a leak ends in a termination report instead of a hang.
    ///
    /// - Parameter grace: The shutdown budget, for example systemd's `TimeoutStopSec` minus a margin.
    public static func server(grace: Duration) -> SystemPolicy {
        var policy = iOS.with(name: "server(grace: \(grace.formattedSeconds)s)", budget: grace)
        policy.expirationLeadTime = min(.seconds(5), grace / 4)
        policy.expirationHandlerTimeLimit = min(policy.expirationHandlerTimeLimit, policy.expirationLeadTime)
        policy.expirationHandlersTotalTimeLimit = min(
            policy.expirationHandlersTotalTimeLimit,
            policy.expirationLeadTime
        )
        policy.idleBackgroundAction = .exit(status: 0)
        return policy
    }

    private func with(name: String, budget: Duration) -> SystemPolicy {
        var copy = self
        copy.name = name
        copy.backgroundTimeBudget = budget
        return copy
    }
}
