public import BackgroundCore

/// Turns instants into the simulated wall clock's words: `day 1 06:00:00.000`.
///
/// Day 1 is the start's calendar date in the simulation's time zone; formatting is done by
/// hand, so labels never depend on the machine's locale or time zone.
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
        let (day, seconds) = dayAndTime(instant)
        let milliseconds = Int((seconds * 1000).rounded(.down))
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let wholeSeconds = milliseconds / 1000 % 60
        return "day \(day) \(Self.two(hours)):\(Self.two(minutes)):\(Self.two(wholeSeconds))."
            + Self.three(milliseconds % 1000)
    }

    /// The day number (1 for the start's date) and the seconds since that day's midnight.
    public func dayAndTime(_ instant: Instant) -> (day: Int, seconds: Double) {
        let local = startUnixSeconds + Double(utcOffset) + instant.seconds
        let startDay = (startUnixSeconds + Double(utcOffset)) / 86_400
        let day = Int((local / 86_400).rounded(.down)) - Int(startDay.rounded(.down)) + 1
        let seconds = local - (local / 86_400).rounded(.down) * 86_400
        return (day, seconds)
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private static func three(_ value: Int) -> String {
        value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)"
    }
}
