extension Scenario.Step {
    /// When a step first happens: an offset from T+0, or a time of day on a day of the scenario.
    ///
    /// | Written | Meaning |
    /// |---|---|
    /// | `"+90m"`, `"+1d2h"`, `"+0s"` | that long after the start |
    /// | `"07:30"`, `"07:30:15"` | that time on day 1, the start's date in the scenario's time zone |
    /// | `"day 3 07:30"` | that time on day 3 (day 1 is the start's date) |
    ///
    /// A time of day must not fall before the start (`"05:00"` with a 06:00 start is an error;
    /// write `"day 2 05:00"`), and every `at` must fall before the end of the scenario.
    ///
    /// ```swift
    /// let start = try Scenario.Start(parsing: "2026-11-21T06:00:00Z")
    /// try Scenario.Step.At(parsing: "07:30").offset(from: start)        // .seconds(5400)
    /// try Scenario.Step.At(parsing: "day 2 07:30").offset(from: start)  // .seconds(91_800)
    /// try Scenario.Step.At(parsing: "+90m").offset(from: start)         // .seconds(5400)
    /// ```
    public enum At: Sendable, Hashable, CustomStringConvertible {
        /// `"+<duration>"`: this long after the start.
        case offset(Duration)
        /// `"HH:MM[:SS]"` (day 1) or `"day N HH:MM[:SS]"`: a time of day on day `day`, counted
        /// from 1 = the start's calendar date in the scenario's time zone.
        case clock(day: Int, time: Scenario.TimeOfDay)

        /// Parses an `at` value.
        ///
        /// - Throws: ``ScenarioError`` with code ``ScenarioError/Code/invalidValue`` or
        ///   ``ScenarioError/Code/outOfRange``; the path is empty.
        public init(parsing text: String) throws(ScenarioError) {
            try self.init(parsing: text, at: .root)
        }

        /// The offset from T+0 at which this `at` falls, for a scenario starting at `start`.
        ///
        /// Negative when a time of day falls before the start on day 1 (the decoder rejects such
        /// steps).
        public func offset(from start: Scenario.Start) -> Duration {
            switch self {
            case .offset(let duration):
                return duration
            case .clock(let day, let time):
                return start.offsetOfMidnight(day: day) + .seconds(time.secondsSinceMidnight)
            }
        }

        /// The canonical notation: `"+1h30m"`, `"07:30"` on day 1, `"day 3 07:30"` after it.
        public var description: String {
            switch self {
            case .offset(let duration): return "+" + ScenarioTime.format(duration)
            case .clock(let day, let time): return day == 1 ? time.description : "day \(day) \(time)"
            }
        }

        init(parsing text: String, at path: ScenarioPath) throws(ScenarioError) {
            if text.hasPrefix("+") {
                self = .offset(try ScenarioTime.parseDuration(String(text.dropFirst()), at: path))
                return
            }
            let invalid = ScenarioError(
                code: .invalidValue,
                path: path.description,
                message: "\(quoted(text)) is not a time; write \"+<duration>\" (as in \"+90m\"), \"HH:MM\" or "
                    + "\"HH:MM:SS\" (as in \"07:30\"), or \"day N HH:MM\" (as in \"day 2 07:30\")"
            )
            var day = 1
            var clock = Substring(text)
            if text.hasPrefix("day ") {
                let parts = text.split(separator: " ", omittingEmptySubsequences: false)
                guard parts.count == 3, !parts[1].isEmpty, parts[1].count <= 4,
                    parts[1].first != "0",
                    parts[1].allSatisfy({ ("0"..."9").contains($0) }), let number = Int(parts[1])
                else { throw invalid }
                guard number <= 401 else {
                    throw ScenarioError(
                        code: .outOfRange,
                        path: path.description,
                        message: "day \(number) is out of range; days are counted from 1 (the start's date) to 401"
                    )
                }
                day = number
                clock = parts[2]
            }
            guard let time = Scenario.TimeOfDay(parsing: clock) else { throw invalid }
            self = .clock(day: day, time: time)
        }
    }

    /// How a step repeats after its first occurrence, until the end of the scenario.
    ///
    /// ```swift
    /// try Scenario.Step.Repeat(parsing: "daily").interval     // .seconds(86_400)
    /// try Scenario.Step.Repeat(parsing: "90m").interval       // .seconds(5400)
    /// ```
    public enum Repeat: Sendable, Hashable, CustomStringConvertible {
        /// `"daily"`: every 24 hours (the scenario's time zone has no daylight-saving changes).
        case daily
        /// `"hourly"`: every hour.
        case hourly
        /// `"<duration>"`: at this interval, at least one minute.
        case every(Duration)

        /// The shortest interval the format accepts: one minute.
        public static let minimumInterval: Duration = .seconds(60)

        /// Parses a `repeat` value.
        ///
        /// - Throws: ``ScenarioError`` with code ``ScenarioError/Code/invalidValue`` or
        ///   ``ScenarioError/Code/outOfRange`` (an interval under a minute); the path is empty.
        public init(parsing text: String) throws(ScenarioError) {
            try self.init(parsing: text, at: .root)
        }

        /// The time between two occurrences.
        public var interval: Duration {
            switch self {
            case .daily: return .seconds(86_400)
            case .hourly: return .seconds(3600)
            case .every(let interval): return interval
            }
        }

        /// `"daily"`, `"hourly"`, or the interval as a duration.
        public var description: String {
            switch self {
            case .daily: return "daily"
            case .hourly: return "hourly"
            case .every(let interval): return ScenarioTime.format(interval)
            }
        }

        init(parsing text: String, at path: ScenarioPath) throws(ScenarioError) {
            switch text {
            case "daily": self = .daily
            case "hourly": self = .hourly
            default:
                guard let first = text.unicodeScalars.first, ("0"..."9").contains(first) else {
                    let suggestion = closestMatch(to: text, among: ["daily", "hourly"])
                    throw ScenarioError(
                        code: .invalidValue,
                        path: path.description,
                        message: "\(quoted(text)) is not a repeat; write \"daily\", \"hourly\" or an interval such "
                            + "as \"30m\"" + (suggestion.map { "; did you mean \(quoted($0))?" } ?? ""),
                        suggestion: suggestion
                    )
                }
                let interval = try ScenarioTime.parseDuration(text, at: path)
                guard interval >= Self.minimumInterval else {
                    throw ScenarioError(
                        code: .outOfRange,
                        path: path.description,
                        message: "the repeat interval \(quoted(text)) is shorter than the minimum, 1m"
                    )
                }
                self = .every(interval)
            }
        }
    }
}
