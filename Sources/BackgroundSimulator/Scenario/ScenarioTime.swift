/// The scenario format's duration notation: whole numbers with units, largest unit first.
///
/// A duration is one or more `<digits><unit>` groups with units `d` (days of 24 hours), `h`,
/// `m`, `s` and `ms`, each unit at most once and from largest to smallest: `"250ms"`, `"90s"`,
/// `"1h30m"`, `"2d"`, `"1d2h3m4s5ms"`. Durations are never negative and at most
/// ``maximumDuration`` (400 days); the resolution is one millisecond.
///
/// ```swift
/// try ScenarioTime.parseDuration("1h30m")        // .seconds(5400)
/// ScenarioTime.format(.seconds(5400))            // "1h30m"
/// ScenarioTime.format(.milliseconds(90_250))     // "1m30s250ms"
/// ```
public enum ScenarioTime {
    /// The longest duration the format accepts anywhere: 400 days.
    public static let maximumDuration: Duration = .seconds(400 * 86_400)

    private static let units: [(name: String, milliseconds: Int64)] = [
        ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000), ("ms", 1),
    ]

    /// Parses a duration such as `"1h30m"`.
    ///
    /// - Parameter text: The duration.
    /// - Returns: The duration, between zero and ``maximumDuration``.
    /// - Throws: ``ScenarioError`` with code ``ScenarioError/Code/invalidValue`` for malformed
    ///   text (empty, negative, fractional, a missing or unknown unit, units out of order), or
    ///   ``ScenarioError/Code/outOfRange`` beyond 400 days. The error's path is empty.
    public static func parseDuration(_ text: String) throws(ScenarioError) -> Duration {
        try parseDuration(text, at: .root)
    }

    /// Formats a duration in the canonical notation, the one ``parseDuration(_:)`` reads.
    ///
    /// Units that are zero are left out, and zero is `"0s"`. Anything below a millisecond is
    /// dropped; a negative duration is formatted as its magnitude preceded by `-` (which the
    /// parser rejects).
    ///
    /// ```swift
    /// ScenarioTime.format(.seconds(86_400 + 7200))   // "1d2h"
    /// ScenarioTime.format(.zero)                     // "0s"
    /// ```
    public static func format(_ duration: Duration) -> String {
        let total = milliseconds(of: duration)
        var remaining = total.magnitude
        var text = total < 0 ? "-" : ""
        for unit in units {
            let count = remaining / UInt64(unit.milliseconds)
            remaining %= UInt64(unit.milliseconds)
            if count > 0 { text += "\(count)\(unit.name)" }
        }
        return text.isEmpty || text == "-" ? "0s" : text
    }

    /// The whole milliseconds in `duration`, rounded toward zero and clamped to `Int64`.
    static func milliseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? (seconds < 0 ? .min : .max) : sum
    }

    static func parseDuration(_ text: String, at path: ScenarioPath) throws(ScenarioError) -> Duration {
        func invalid(_ problem: String) -> ScenarioError {
            ScenarioError(code: .invalidValue, path: path.description, message: problem)
        }
        let example = "write whole numbers with units d, h, m, s or ms, largest first, as in \"1h30m\""
        guard !text.isEmpty else { throw invalid("a duration must not be empty; \(example)") }
        guard !text.hasPrefix("-") else { throw invalid("durations cannot be negative, found \(quoted(text))") }
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var total: Int64 = 0
        var previousUnit = -1
        while index < scalars.count {
            let digitsStart = index
            while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            guard index > digitsStart else { throw invalid("\(quoted(text)) is not a duration; \(example)") }
            let digits = String(String.UnicodeScalarView(scalars[digitsStart..<index]))
            let unitStart = index
            while index < scalars.count, ("a"..."z").contains(scalars[index]) || ("A"..."Z").contains(scalars[index]) {
                index += 1
            }
            let unit = String(String.UnicodeScalarView(scalars[unitStart..<index]))
            if unit.isEmpty {
                if index < scalars.count, scalars[index] == "." {
                    throw invalid(
                        "\(quoted(text)) has a fraction; combine units instead, as in \"1h30m\" or \"1s500ms\""
                    )
                }
                if index == scalars.count, digits.count <= 15 {
                    throw invalid("the number \(digits) in \(quoted(text)) needs a unit, as in \"\(digits)s\"")
                }
                throw invalid("\(quoted(text)) is not a duration; \(example)")
            }
            guard let rank = units.firstIndex(where: { $0.name == unit }) else {
                throw invalid("unknown unit \(quoted(unit)) in \(quoted(text)); units are d, h, m, s and ms")
            }
            guard rank > previousUnit else {
                throw invalid(
                    "the units in \(quoted(text)) must go from largest to smallest, each once, as in \"1h30m\""
                )
            }
            previousUnit = rank
            guard digits.count <= 15, let count = Int64(digits) else { throw tooLong(text, at: path) }
            // 15 digits of days overflow Int64 milliseconds: checked before the product.
            let (part, overflow) = count.multipliedReportingOverflow(by: units[rank].milliseconds)
            guard !overflow, part <= milliseconds(of: maximumDuration) else { throw tooLong(text, at: path) }
            total += part
            guard total <= milliseconds(of: maximumDuration) else { throw tooLong(text, at: path) }
        }
        return .milliseconds(total)
    }

    private static func tooLong(_ text: String, at path: ScenarioPath) -> ScenarioError {
        ScenarioError(
            code: .outOfRange,
            path: path.description,
            message: "\(quoted(text)) is longer than the longest duration allowed, 400d"
        )
    }
}

extension Scenario {
    /// A time of day on a 24-hour clock, as written in a step's `at`: `"07:30"` or `"23:59:59"`.
    ///
    /// ```swift
    /// let time = Scenario.TimeOfDay(hour: 7, minute: 30)
    /// time.description                    // "07:30"
    /// time.secondsSinceMidnight           // 27000
    /// ```
    public struct TimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The hour, 0 to 23.
        public var hour: Int
        /// The minute, 0 to 59.
        public var minute: Int
        /// The second, 0 to 59.
        public var second: Int

        /// Creates a time of day; values are not checked (the decoder checks them).
        public init(hour: Int, minute: Int, second: Int = 0) {
            self.hour = hour
            self.minute = minute
            self.second = second
        }

        /// Seconds since midnight: `hour * 3600 + minute * 60 + second`.
        public var secondsSinceMidnight: Int { hour * 3600 + minute * 60 + second }

        /// `HH:MM`, or `HH:MM:SS` when the second is not zero.
        public var description: String {
            let pad = { (value: Int) in String(value).leftPadded(to: 2) }
            return second == 0 ? "\(pad(hour)):\(pad(minute))" : "\(pad(hour)):\(pad(minute)):\(pad(second))"
        }

        /// Orders times by ``secondsSinceMidnight``.
        public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
            lhs.secondsSinceMidnight < rhs.secondsSinceMidnight
        }

        /// Parses `HH:MM` or `HH:MM:SS` (two digits each); nil when malformed or out of range.
        init?(parsing text: Substring) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3,
                parts.allSatisfy({ $0.count == 2 && $0.allSatisfy { ("0"..."9").contains($0) } }),
                let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
            else { return nil }
            let second = parts.count == 3 ? Int(parts[2]) ?? 60 : 0
            guard second < 60 else { return nil }
            self.init(hour: hour, minute: minute, second: second)
        }
    }
}
