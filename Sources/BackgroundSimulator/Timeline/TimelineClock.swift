/// Wall-clock and elapsed-time text for the timeline: axis labels, day boundaries and the times in details.
///
/// Pure arithmetic on the document's origin and UTC offset (no `Date`, no time zone database, no real clock), so the
/// same document always gives the same text.
struct TimelineClock {
    private static let day = 86_400.0
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The local wall-clock time of `t = 0`, in seconds since 1970-01-01 00:00 local time.
    let localOrigin: Double
    /// The offset from UTC, in seconds, clamped to ±24 h.
    let utcOffsetSeconds: Int
    /// Whether the run spans more than one day, so that instants name their day.
    let namesDays: Bool

    /// A clock for a document's origin and offset; an origin that is not finite or is beyond ±3000 years counts as 0.
    init(originUnixSeconds: Double, utcOffsetSeconds: Int, duration: Double) {
        let origin = originUnixSeconds.isFinite && abs(originUnixSeconds) < 1e11 ? originUnixSeconds : 0
        self.utcOffsetSeconds = min(max(utcOffsetSeconds, -86_400), 86_400)
        self.localOrigin = origin + Double(self.utcOffsetSeconds)
        let firstDay = (localOrigin / Self.day).rounded(.down)
        self.namesDays = ((localOrigin + duration) / Self.day).rounded(.down) > firstDay || duration > Self.day
    }

    /// The time zone, for example `"UTC+01:00"` or `"UTC"`.
    var offsetText: String {
        guard utcOffsetSeconds != 0 else { return "UTC" }
        let minutes = abs(utcOffsetSeconds) / 60
        return "UTC" + (utcOffsetSeconds < 0 ? "-" : "+") + Self.twoDigits(minutes / 60) + ":"
            + Self.twoDigits(minutes % 60)
    }

    /// The times `t` in `0...duration` at which the local wall clock is a multiple of `step` seconds (local midnight
    /// for steps of a day or more), at most `limit` of them.
    func alignedTimes(step: Double, duration: Double, limit: Int) -> [Double] {
        guard step > 0 else { return [] }
        let first = (localOrigin / step).rounded(.up)
        var times: [Double] = []
        var index = 0.0
        while times.count < limit {
            let t = (first + index) * step - localOrigin
            if t > duration + 1e-9 { break }
            times.append(max(t, 0))
            index += 1
        }
        return times
    }

    /// The day of the run `t` falls on, counting from 1 at the start.
    func dayNumber(_ t: Double) -> Int {
        Self.whole(((localOrigin + t) / Self.day).rounded(.down) - (localOrigin / Self.day).rounded(.down)) + 1
    }

    /// The local time of day at `t`: `"06:00"`, or `"06:00:12"` with seconds.
    func timeOfDay(_ t: Double, seconds: Bool) -> String {
        let total = Self.whole((localOrigin + t).rounded(.down))
        let second = ((total % 86_400) + 86_400) % 86_400
        let text = Self.twoDigits(second / 3600) + ":" + Self.twoDigits(second / 60 % 60)
        return seconds ? text + ":" + Self.twoDigits(second % 60) : text
    }

    /// The local date at `t`: `"Tue 12 Mar"`, or `"Tue 12 Mar 2024"` with the year.
    func date(_ t: Double, year: Bool = false) -> String {
        let days = Self.whole(((localOrigin + t) / Self.day).rounded(.down))
        let civil = Self.civil(daysSinceEpoch: days)
        let weekday = Self.weekdays[((days % 7) + 11) % 7]
        let text = weekday + " " + String(civil.day) + " " + Self.months[civil.month - 1]
        return year ? text + " " + String(civil.year) : text
    }

    /// An instant for details: `"06:00:12"`, or `"day 2 06:00:12"` when the run spans days.
    func instant(_ t: Double) -> String {
        let time = timeOfDay(t, seconds: true)
        return namesDays ? "day " + String(dayNumber(t)) + " " + time : time
    }

    /// An interval for details: `"06:00:12 → 06:00:42 (30 s) · t+6h 00m 12s"`.
    func range(_ start: Double, _ end: Double) -> String {
        instant(start) + " \u{2192} " + instant(end) + " (" + Self.duration(end - start) + ") \u{B7} "
            + Self.elapsed(start)
    }

    /// An instant for details with its elapsed time: `"06:00:12 · t+6h 00m 12s"`.
    func point(_ t: Double) -> String {
        instant(t) + " \u{B7} " + Self.elapsed(t)
    }

    /// A length of time: `"0.5 s"`, `"30 s"`, `"4 min 05 s"`, `"15 min"`, `"2 h 03 min"`, `"2 h"`, `"3 d 04 h"`.
    static func duration(_ seconds: Double) -> String {
        let value = seconds.isFinite ? max(seconds, 0) : 0
        if value < 10 { return TimelineMarkup.fixed(value, places: value < 1 ? 2 : 1) + " s" }
        let whole = Int(min(value, 1e12).rounded())
        func parts(_ major: Int, _ majorUnit: String, _ minor: Int, _ minorUnit: String) -> String {
            String(major) + " " + majorUnit + (minor == 0 ? "" : " " + twoDigits(minor) + " " + minorUnit)
        }
        if whole < 60 { return String(whole) + " s" }
        if whole < 3600 { return parts(whole / 60, "min", whole % 60, "s") }
        if whole < 86_400 { return parts(whole / 3600, "h", whole / 60 % 60, "min") }
        return parts(whole / 86_400, "d", whole / 3600 % 24, "h")
    }

    /// Seconds from the start of the run: `"t+12.5s"`, `"t+4m 05s"`, `"t+6h 00m 12s"`, `"t+2d 06h 00m 12s"`.
    static func elapsed(_ t: Double) -> String {
        let value = t.isFinite ? max(t, 0) : 0
        if value < 60 { return "t+" + TimelineMarkup.fixed(value, places: 1) + "s" }
        let whole = Int(min(value, 1e12).rounded(.down))
        let clock = twoDigits(whole / 60 % 60) + "m " + twoDigits(whole % 60) + "s"
        if whole < 3600 { return "t+" + String(whole / 60) + "m " + twoDigits(whole % 60) + "s" }
        if whole < 86_400 { return "t+" + String(whole / 3600) + "h " + clock }
        return "t+" + String(whole / 86_400) + "d " + twoDigits(whole / 3600 % 24) + "h " + clock
    }

    /// `value` as an integer, 0 when it is not finite and clamped to ±10¹⁵ (so that conversion never traps).
    private static func whole(_ value: Double) -> Int {
        value.isFinite ? Int(min(max(value, -1e15), 1e15)) : 0
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01.
    private static func civil(daysSinceEpoch: Int) -> (year: Int, month: Int, day: Int) {
        civilDate(daysSince1970: Int64(daysSinceEpoch))
    }
}
