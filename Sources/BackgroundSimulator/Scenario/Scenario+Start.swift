public import Foundation

extension Scenario {
    /// The wall-clock time at T+0, and the scenario's time zone.
    ///
    /// Written as an RFC 3339 date-time with whole seconds and an explicit offset:
    /// `"2026-11-21T06:00:00Z"` or `"2026-11-21T07:00:00+01:00"`. The offset is the scenario's
    /// time zone: `"HH:MM"` times in the timeline are read in it. It is a fixed offset, so days
    /// are always 24 hours (there are no daylight-saving changes).
    ///
    /// ```swift
    /// let start = try Scenario.Start(parsing: "2026-11-21T07:00:00+01:00")
    /// start.secondsSince1970   // 1_795_240_800 (06:00 UTC)
    /// start.utcOffset          // 3600
    /// start.description        // "2026-11-21T07:00:00+01:00"
    /// ```
    public struct Start: Sendable, Hashable, CustomStringConvertible {
        /// The instant of T+0, in seconds since 1970-01-01T00:00:00Z.
        public var secondsSince1970: Int64
        /// The scenario's offset from UTC in seconds, east positive; a whole number of minutes
        /// between -23:59 and +23:59.
        public var utcOffset: Int

        /// The default start, `2026-01-01T00:00:00Z`.
        public static let `default` = Start(secondsSince1970: 1_767_225_600, utcOffset: 0)

        /// Creates a start from an instant and an offset (not checked; the decoder checks them).
        public init(secondsSince1970: Int64, utcOffset: Int = 0) {
            self.secondsSince1970 = secondsSince1970
            self.utcOffset = utcOffset
        }

        /// Parses an RFC 3339 date-time such as `"2026-11-21T06:00:00Z"`.
        ///
        /// Years 1970 to 9999, whole seconds, `T` and `Z` in upper case, and an offset of `Z` or
        /// `±HH:MM`.
        ///
        /// - Throws: ``ScenarioError`` with code ``ScenarioError/Code/invalidValue`` (malformed)
        ///   or ``ScenarioError/Code/outOfRange`` (a field out of range); the path is empty.
        public init(parsing text: String) throws(ScenarioError) {
            try self.init(parsing: text, at: .root)
        }

        /// The instant of T+0 as a `Date`.
        public var date: Date { Date(timeIntervalSince1970: TimeInterval(secondsSince1970)) }

        /// The start in the notation of the format, in its own offset: `2026-11-21T06:00:00Z`.
        public var description: String {
            let local = secondsSince1970 + Int64(utcOffset)
            let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
            let seconds = Int(local - days * 86_400)
            let (year, month, day) = Self.civil(fromDays: days)
            let pad = { (value: Int, width: Int) in String(value).leftPadded(to: width) }
            var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            text += "\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
            guard utcOffset != 0 else { return text + "Z" }
            let magnitude = abs(utcOffset)
            return text + (utcOffset < 0 ? "-" : "+") + "\(pad(magnitude / 3600, 2)):\(pad(magnitude / 60 % 60, 2))"
        }

        /// The offset from T+0 of midnight at the beginning of day `day` in the scenario's time
        /// zone, where day 1 is the start's calendar date. Zero or negative for day 1.
        ///
        /// ```swift
        /// let start = try Scenario.Start(parsing: "2026-11-21T06:00:00Z")
        /// start.offsetOfMidnight(day: 1)   // .seconds(-21_600)
        /// start.offsetOfMidnight(day: 2)   // .seconds(64_800)
        /// ```
        public func offsetOfMidnight(day: Int) -> Duration {
            let local = secondsSince1970 + Int64(utcOffset)
            let secondsIntoDay = ((local % 86_400) + 86_400) % 86_400
            return .seconds(Int64(day - 1) * 86_400 - secondsIntoDay)
        }

        init(parsing text: String, at path: ScenarioPath) throws(ScenarioError) {
            let invalid = ScenarioError(
                code: .invalidValue,
                path: path.description,
                message: "\(quoted(text)) is not a date-time; write it as \"2026-11-21T06:00:00Z\" or with an "
                    + "offset, as in \"2026-11-21T07:00:00+01:00\""
            )
            let chars = Array(text.utf8)
            let template = Array("dddd-dd-ddTdd:dd:dd".utf8)
            guard chars.count == 20 || chars.count == 25, zip(template, chars).allSatisfy(Self.fits) else {
                throw invalid
            }
            func number(_ range: Range<Int>) -> Int { Int(String(decoding: chars[range], as: UTF8.self)) ?? -1 }
            var offset = 0
            if chars.count == 20 {
                guard chars[19] == UInt8(ascii: "Z") else { throw invalid }
            } else {
                guard [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(chars[19]),
                    zip(Array("dd:dd".utf8), chars[20...]).allSatisfy(Self.fits)
                else { throw invalid }
                let (hours, minutes) = (number(20..<22), number(23..<25))
                guard hours < 24, minutes < 60 else { throw Self.outOfRange(text, "the offset", path) }
                offset = (hours * 3600 + minutes * 60) * (chars[19] == UInt8(ascii: "-") ? -1 : 1)
            }
            let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
            let (hour, minute, second) = (number(11..<13), number(14..<16), number(17..<19))
            guard year >= 1970 else { throw Self.outOfRange(text, "the year (1970 to 9999)", path) }
            guard (1...12).contains(month) else { throw Self.outOfRange(text, "the month", path) }
            guard (1...Self.daysIn(month: month, year: year)).contains(day) else {
                throw Self.outOfRange(text, "the day of the month", path)
            }
            guard hour < 24, minute < 60, second < 60 else { throw Self.outOfRange(text, "the time of day", path) }
            let local =
                Self.days(year: year, month: month, day: day) * 86_400
                + Int64(hour * 3600 + minute * 60 + second)
            self.init(secondsSince1970: local - Int64(offset), utcOffset: offset)
        }

        private static func fits(_ pattern: UInt8, _ char: UInt8) -> Bool {
            pattern == UInt8(ascii: "d") ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(char) : pattern == char
        }

        private static func outOfRange(_ text: String, _ field: String, _ path: ScenarioPath) -> ScenarioError {
            ScenarioError(
                code: .outOfRange,
                path: path.description,
                message: "\(field) is out of range in \(quoted(text))"
            )
        }

        private static func daysIn(month: Int, year: Int) -> Int {
            let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        }

        /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
        private static func days(year: Int, month: Int, day: Int) -> Int64 {
            let y = Int64(month <= 2 ? year - 1 : year)
            let era = (y >= 0 ? y : y - 399) / 400
            let yearOfEra = y - era * 400
            let dayOfYear = Int64((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1)
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }

        /// The date of a day count since 1970-01-01.
        private static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
            civilDate(daysSince1970: days)
        }
    }
}
