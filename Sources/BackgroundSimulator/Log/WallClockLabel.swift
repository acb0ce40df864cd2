public import BackgroundCore

/// Turns instants into the simulated wall clock's words: `day 1 06:00:00.000`.
///
/// Day 1 is the start's calendar date in the simulation's time zone; the arithmetic is the
/// timeline's (`TimelineClock`), so labels never depend on the machine's locale or time zone.
public struct WallClockLabel: Sendable, Hashable {
    /// Seconds since 1970 at T+0.
    public var startUnixSeconds: Double
    /// The time zone's offset from UTC, in seconds.
    public var utcOffset: Int

    /// Creates a labeller.
    public init(startUnixSeconds: Double, utcOffset: Int) {
        self.startUnixSeconds = startUnixSeconds
        self.utcOffset = utcOffset
    }

    /// The label of an instant: `day 2 07:30:00.000`.
    public func label(_ instant: Instant) -> String {
        // The timeline's clock does the calendar; the log adds milliseconds.
        let clock = TimelineClock(originUnixSeconds: startUnixSeconds, utcOffsetSeconds: utcOffset, duration: 0)
        let t = instant.seconds
        let local = clock.localOrigin + t
        let milliseconds = Int(((local - local.rounded(.down)) * 1000).rounded(.down))
        let padded =
            milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "day \(clock.dayNumber(t)) \(clock.timeOfDay(t, seconds: true)).\(padded)"
    }
}
