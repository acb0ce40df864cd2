/// What the system says when it ends an app: the code, the reason, and everything that leaked.
///
/// Apple stopped listing leaked assertions in crash reports in iOS 11; we list every one, with
/// its name, identifier, begin time and the source line that began it.
///
/// ```swift
/// if case .terminate(_, let report) = effect {
///     print(report.renderText())   // an Apple-style header, then the leaked assertions
/// }
/// ```
public struct TerminationReport: Sendable, Hashable, Codable {
    /// An assertion that was still held when the app was ended.
    public struct LeakedAssertion: Sendable, Hashable, Codable {
        /// The identifier the app got from `beginBackgroundTask`.
        public var id: AssertionID
        /// The assertion's name.
        public var name: String
        /// When it was begun.
        public var beganAt: Instant
        /// Where it was begun.
        public var origin: CallSite
        /// Whether its expiration handler had been called.
        public var expirationDelivered: Bool

        /// Creates a leaked-assertion record from a ledger entry.
        public init(_ assertion: Assertion) {
            self.id = assertion.id
            self.name = assertion.name
            self.beganAt = assertion.beganAt
            self.origin = assertion.origin
            self.expirationDelivered = assertion.hasExpirationHandler && assertion.expirationDelivered
        }
    }

    /// A background task handed to the app and not completed when it was ended.
    public struct UncompletedTask: Sendable, Hashable, Codable {
        /// The run.
        public var run: TaskRunID
        /// The request's identifier.
        public var identifier: String
        /// Its kind.
        public var kind: TaskKind
        /// When it was handed over.
        public var startedAt: Instant

        /// Creates a record from a run.
        public init(_ run: TaskRun) {
            self.run = run.id
            self.identifier = run.request.identifier
            self.kind = run.request.kind
            self.startedAt = run.startedAt
        }
    }

    /// A number unique within one system, increasing from 1: the report's incident number.
    public var incident: Int
    /// The app that was ended.
    public var app: AppID
    /// Why.
    public var reason: TerminationReason
    /// A sentence that explains the termination, for example
    /// `has active assertions beyond permitted time`.
    public var explanation: String
    /// When it happened.
    public var at: Instant
    /// The state the app was in.
    public var stateBefore: AppLifecycleState
    /// The policy's budget, as Apple's `permittedBackgroundDuration`.
    public var permittedBackgroundDuration: Duration
    /// Every assertion still held, oldest first.
    public var leakedAssertions: [LeakedAssertion]
    /// The name of the policy in force.
    public var policyName: String
    /// Every background task handed over and not completed, oldest first.
    public var uncompletedTasks: [UncompletedTask]

    /// The exception code, for watchdog terminations.
    public var code: ExceptionCode? { reason.code }

    /// Whether the app ended cleanly (exit status 0, nothing leaked).
    public var isClean: Bool {
        if case .exited(status: 0) = reason { return leakedAssertions.isEmpty }
        return false
    }

    /// Creates a report.
    public init(
        incident: Int,
        app: AppID,
        reason: TerminationReason,
        explanation: String,
        at: Instant,
        stateBefore: AppLifecycleState,
        permittedBackgroundDuration: Duration,
        leakedAssertions: [LeakedAssertion],
        policyName: String,
        uncompletedTasks: [UncompletedTask] = []
    ) {
        self.uncompletedTasks = uncompletedTasks
        self.incident = incident
        self.app = app
        self.reason = reason
        self.explanation = explanation
        self.at = at
        self.stateBefore = stateBefore
        self.permittedBackgroundDuration = permittedBackgroundDuration
        self.leakedAssertions = leakedAssertions
        self.policyName = policyName
    }
}
