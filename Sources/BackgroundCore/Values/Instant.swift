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
    /// The time elapsed since the origin of the timeline.
    public var offset: Duration

    /// Creates the instant that lies `offset` after the origin.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// The origin of the timeline.
    public static let zero = Instant(offset: .zero)

    /// A point later than any a system will reach; used for "never".
    public static let distantFuture = Instant(offset: .seconds(Int64.max / 4))

    // The operators work on one `Int128` of attoseconds (`ticks`), which the compiler inlines
    // (also into other modules: `@inlinable`): `Duration`'s own `<`, `==`, `+` and `-` are calls
    // into the standard library, and instants are compared and moved on every path of the core
    // and of the simulator's job queue.

    @inlinable
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset.ticks < rhs.offset.ticks }

    @inlinable
    public static func == (lhs: Instant, rhs: Instant) -> Bool { lhs.offset.ticks == rhs.offset.ticks }

    @inlinable
    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(offset: Duration(ticks: lhs.offset.ticks + rhs.ticks))
    }

    @inlinable
    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(offset: Duration(ticks: lhs.offset.ticks - rhs.ticks))
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
