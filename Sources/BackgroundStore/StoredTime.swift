import BackgroundCore

/// How the store writes instants and durations as `REAL` seconds, and reads them back.
///
/// Instants are stored as wall-clock seconds since 1970. A `Double` near today's time resolves
/// about a quarter of a microsecond, so an instant comes back rounded to the microsecond of the
/// timeline: an instant that fell on a whole microsecond (or millisecond) comes back exactly.
/// Durations are stored as seconds and come back to the nanosecond.
///
/// Reading never traps: a value that is not finite, or that no `Instant` or `Duration` can hold,
/// is `nil`, and the caller reports the row as invalid.
enum StoredTime {
    /// The largest number of seconds kept to the microsecond; larger ones keep whole seconds.
    private static let microsecondLimit = Double(Int64.max) / 1e6
    /// The largest number of seconds kept to the nanosecond.
    private static let nanosecondLimit = Double(Int64.max) / 1e9
    /// Seconds that `Duration(secondsComponent:attosecondsComponent:)` accepts.
    private static let secondsLimit = Double(Int64.max)
    /// Offsets from here on read back as `Instant.distantFuture`, the core's "never". Near 2^61 s
    /// a `Double` resolves 512 s, and adding the origin moves the value by a few hundred seconds,
    /// so "never" is recognized by a wide margin: half of it is still 36 billion years.
    private static let distantFutureThreshold = Instant.distantFuture.seconds / 2

    /// The value to store for `instant`: its wall-clock time in seconds since 1970.
    static func unixSeconds(of instant: Instant, clock: WallClock) -> Double {
        clock.unixSeconds(of: instant)
    }

    /// The instant of a stored wall-clock time on the current timeline, or `nil` if no instant
    /// can hold it.
    static func instant(unixSeconds: Double, clock: WallClock) -> Instant? {
        let offset = unixSeconds - clock.unixSecondsAtOrigin
        guard offset.isFinite else { return nil }
        if offset >= distantFutureThreshold { return .distantFuture }
        if abs(offset) < microsecondLimit {
            return Instant(offset: .microseconds(Int64((offset * 1e6).rounded())))
        }
        return wholeSeconds(offset).map(Instant.init(offset:))
    }

    /// The value to store for `duration`: its length in seconds.
    static func seconds(of duration: Duration) -> Double {
        duration.seconds
    }

    /// The duration of a stored number of seconds, or `nil` if no duration can hold it.
    static func duration(seconds: Double) -> Duration? {
        guard seconds.isFinite else { return nil }
        if abs(seconds) < nanosecondLimit {
            return .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        return wholeSeconds(seconds)
    }

    private static func wholeSeconds(_ seconds: Double) -> Duration? {
        let whole = seconds.rounded()
        guard abs(whole) < secondsLimit else { return nil }
        return Duration(secondsComponent: Int64(whole), attosecondsComponent: 0)
    }
}
