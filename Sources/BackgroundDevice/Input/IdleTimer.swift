/// Whether the user is away, from the times of input events: idle once no input arrived for
/// ``idleAfter``, active again at the next event. Pure: times are passed in (monotonic
/// nanoseconds), so tests drive it without a clock.
public struct IdleTimer: Sendable, Hashable {
    /// How long without input makes the user idle.
    public let idleAfter: Duration
    /// The last input event (or the start, which counts as activity: the user may be there).
    public private(set) var lastActivity: Int64
    /// Whether the user is idle now.
    public private(set) var isIdle = false

    /// The default wait: 5 minutes without input. (Ours: Apple does not publish when a device
    /// counts as idle for processing tasks; 5 minutes is a common screen-lock default.)
    public static let defaultIdleAfter = Duration.seconds(300)

    /// A timer started at `start` (monotonic nanoseconds), not idle.
    public init(idleAfter: Duration = Self.defaultIdleAfter, start: Int64) {
        self.idleAfter = idleAfter
        lastActivity = start
    }

    private var idleAfterNanoseconds: Int64 {
        let (seconds, attoseconds) = idleAfter.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Input at `now`; returns whether the state changed (idle → active).
    public mutating func activity(at now: Int64) -> Bool {
        lastActivity = max(lastActivity, now)
        defer { isIdle = false }
        return isIdle
    }

    /// The time is `now`; returns whether the state changed (active → idle).
    public mutating func check(at now: Int64) -> Bool {
        guard !isIdle, now - lastActivity >= idleAfterNanoseconds else { return false }
        isIdle = true
        return true
    }

    /// How long `poll` may wait before ``check(at:)`` is due, in milliseconds rounded up; -1
    /// (forever) while idle, when only input can change the state.
    public func timeoutMilliseconds(at now: Int64) -> Int32 {
        guard !isIdle else { return -1 }
        let remaining = max(0, lastActivity + idleAfterNanoseconds - now)
        return Int32(clamping: (remaining + 999_999) / 1_000_000)
    }
}
