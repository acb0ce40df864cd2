/// A point on the system's monotonic timeline, measured from the system's origin.
///
/// The core never reads a clock: every event carries the `Instant` at which it happened, and
/// the shells (embedded, daemon, simulator) decide what the origin is. The embedded system uses
/// the moment it started; the simulator uses virtual time zero.
///
/// ```swift
/// let start = Instant.zero
/// let later = start + .seconds(30)
/// later - start   // .seconds(30)
/// ```
public struct Instant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The time elapsed since the origin of the timeline, from ``distantPast`` to
    /// ``distantFuture``'s.
    public let offset: Duration

    /// Creates the instant that lies `offset` after the origin, saturating at ``distantFuture``
    /// and ``distantPast``: no instant lies beyond them, so none can make a later addition or
    /// its rendering in seconds trap.
    public init(offset: Duration) {
        let ticks = offset.ticks
        let limit = Self.limitTicks
        self.offset = ticks > limit ? Duration(ticks: limit) : ticks < -limit ? Duration(ticks: -limit) : offset
    }

    /// An instant whose offset is on the timeline already (the operators clamp first).
    @usableFromInline
    init(onTimeline offset: Duration) {
        self.offset = offset
    }

    /// The origin of the timeline.
    public static let zero = Instant(offset: .zero)

    /// A point later than any a system will reach; used for "never". No instant lies past it:
    /// moving an instant saturates here (see ``+(_:_:)-(Instant,Duration)``).
    public static let distantFuture = Instant(offset: .seconds(Int64.max / 4))

    /// A point earlier than any a system will reach, `distantFuture`'s mirror; no instant lies
    /// before it.
    public static let distantPast = Instant(offset: .seconds(-(Int64.max / 4)))

    /// Whether `duration` fits on the timeline: at most ``distantFuture``'s offset either way.
    /// An instant always does; a duration that arrives from another process or a file is
    /// checked against this where it enters (the wire's decoder refuses one that does not).
    public static func isOnTimeline(_ duration: Duration) -> Bool {
        let ticks = duration.ticks
        return ticks <= limitTicks && ticks >= -limitTicks
    }

    // The operators work on one `Int128` of attoseconds (`ticks`), which the compiler inlines
    // (also into other modules: `@inlinable`): `Duration`'s own `<`, `==`, `+` and `-` are calls
    // into the standard library, and instants are compared and moved on every path of the core
    // and of the simulator's job queue.

    @inlinable
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset.ticks < rhs.offset.ticks }

    @inlinable
    public static func == (lhs: Instant, rhs: Instant) -> Bool { lhs.offset.ticks == rhs.offset.ticks }

    /// The instant `rhs` after `lhs`, saturating at ``distantFuture`` and ``distantPast``: a
    /// duration from outside (a fetch interval of `Duration`'s largest value, an app's
    /// `earliestBeginDate` in 10,000 years) never traps, and "never" plus anything stays never.
    @inlinable
    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        let (sum, overflow) = lhs.offset.ticks.addingReportingOverflow(rhs.ticks)
        return Instant(saturating: sum, overflow: overflow ? (rhs.ticks > 0 ? 1 : -1) : 0)
    }

    /// The instant `rhs` before `lhs`, saturating as ``+(_:_:)-(Instant,Duration)`` does.
    @inlinable
    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        let (difference, overflow) = lhs.offset.ticks.subtractingReportingOverflow(rhs.ticks)
        return Instant(saturating: difference, overflow: overflow ? (rhs.ticks < 0 ? 1 : -1) : 0)
    }

    /// ``distantFuture``'s offset in attoseconds: `Int64.max / 4` seconds, about 2.3 × 10^36.
    @inlinable
    static var limitTicks: Int128 { 2_305_843_009_213_693_951 * 1_000_000_000_000_000_000 }

    /// The instant `ticks` after the origin, clamped to the timeline; `overflow` is the
    /// direction in which `Int128` overflowed (1 or -1; zero when it did not).
    @inlinable
    init(saturating ticks: Int128, overflow: Int128) {
        let limit = Self.limitTicks
        if overflow > 0 || ticks > limit {
            self.init(onTimeline: Duration(ticks: limit))
        } else if overflow < 0 || ticks < -limit {
            self.init(onTimeline: Duration(ticks: -limit))
        } else {
            self.init(onTimeline: Duration(ticks: ticks))
        }
    }

    @inlinable
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        Duration(ticks: lhs.offset.ticks - rhs.offset.ticks)
    }

    @inlinable
    public static func += (lhs: inout Instant, rhs: Duration) { lhs = lhs + rhs }

    /// Encodes as a number of seconds since the origin (exact to the nanosecond for 100 days),
    /// so reports read `"at": 30.5` rather than a pair of integers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(offset.seconds)
    }

    public init(from decoder: any Decoder) throws {
        self.init(offset: .seconds(fromInterval: try decoder.singleValueContainer().decode(Double.self)))
    }

    /// Seconds since the origin, for display and for Apple's `TimeInterval` values.
    public var seconds: Double { offset.seconds }

    /// The instant as `T+<seconds>` with millisecond precision, e.g. `T+30.000s`.
    public var description: String { "T+" + offset.formattedSeconds + "s" }
}

extension Duration {
    /// The duration in seconds as a `Double` (Apple's `TimeInterval`).
    public var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// Creates a duration from a number of seconds given as a `Double`, rounded to nanoseconds.
    ///
    /// Saturates instead of trapping: values beyond about ±292 years (and NaN, as zero) are
    /// clamped, since they come from files and other processes.
    public static func seconds(fromInterval interval: Double) -> Duration {
        guard !interval.isNaN else { return .zero }
        let nanoseconds = (interval * 1e9).rounded()
        if nanoseconds >= 9.2e18 { return .nanoseconds(Int64.max) }
        if nanoseconds <= -9.2e18 { return .nanoseconds(Int64.min) }
        return .nanoseconds(Int64(nanoseconds))
    }

    /// The duration in seconds with exactly three decimals, e.g. `30.000`; pure and locale-free.
    public var formattedSeconds: String {
        var (whole, attoseconds) = components
        let negative = whole < 0 || (whole == 0 && attoseconds < 0)
        if negative {
            whole = -whole
            attoseconds = -attoseconds
        }
        var milliseconds = attoseconds / 1_000_000_000_000_000
        if milliseconds < 0 {  // components may mix signs
            whole -= 1
            milliseconds += 1000
        }
        let fraction = String(milliseconds)
        let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
        return (negative ? "-" : "") + String(whole) + "." + padded
    }
}

extension Instant {
    /// The instant `value` seconds after the origin: `at: .seconds(31)` in tests and scripts.
    public static func seconds<T: BinaryInteger>(_ value: T) -> Instant { Instant(offset: .seconds(value)) }

    /// The instant `value` seconds after the origin, from a fractional number of seconds.
    public static func seconds(_ value: Double) -> Instant { Instant(offset: .seconds(fromInterval: value)) }

    /// The instant `value` milliseconds after the origin.
    public static func milliseconds<T: BinaryInteger>(_ value: T) -> Instant { Instant(offset: .milliseconds(value)) }
}

extension Duration {
    /// The duration in attoseconds, one `Int128`: `attoseconds` where the standard library has
    /// it (Swift 6.2 on Linux, inlined to two registers), from the components on Apple
    /// platforms before macOS 26.
    @usableFromInline @inline(__always) var ticks: Int128 {
        #if canImport(Darwin)
        let (seconds, attoseconds) = components
        return Int128(seconds) * 1_000_000_000_000_000_000 + Int128(attoseconds)
        #else
        return attoseconds
        #endif
    }

    /// A duration of `ticks` attoseconds.
    @usableFromInline @inline(__always) init(ticks: Int128) {
        #if canImport(Darwin)
        let (seconds, attoseconds) = ticks.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
        self.init(secondsComponent: Int64(seconds), attosecondsComponent: Int64(attoseconds))
        #else
        self.init(attoseconds: ticks)
        #endif
    }
}
