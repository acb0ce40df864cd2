/// A pressure stall information (PSI) file: `/proc/pressure/memory` or a cgroup's
/// `memory.pressure`, as the kernel's `Documentation/accounting/psi.rst` describes it:
///
/// ```
/// some avg10=0.00 avg60=0.00 avg300=0.00 total=0
/// full avg10=0.00 avg60=0.00 avg300=0.00 total=0
/// ```
///
/// `some` is the share of time at least one task stalled on memory, `full` the share all
/// non-idle tasks did at once; averages are percentages over 10, 60 and 300 s, `total` the
/// stalled time in microseconds.
public struct PressureStall: Sendable, Hashable {
    /// One line.
    public struct Line: Sendable, Hashable {
        /// Percent of the last 10 s, 0...100.
        public var avg10: Double
        /// Percent of the last 60 s.
        public var avg60: Double
        /// Percent of the last 300 s.
        public var avg300: Double
        /// Total stall time in microseconds since boot (or since the cgroup was created).
        public var total: UInt64

        /// A line with the given values.
        public init(avg10: Double, avg60: Double, avg300: Double, total: UInt64) {
            self.avg10 = avg10
            self.avg60 = avg60
            self.avg300 = avg300
            self.total = total
        }
    }

    /// The `some` line.
    public var some: Line
    /// The `full` line; the kernel has written one for memory since 5.2 (and for cpu since 5.13,
    /// where it is always zero at the system level).
    public var full: Line?

    /// The values given.
    public init(some: Line, full: Line?) {
        self.some = some
        self.full = full
    }

    /// The largest file accepted: two lines are under 120 bytes.
    public static let maximumLength = 4096

    /// Parses a PSI file strictly: a `some` line, an optional `full` line, each with exactly the
    /// keys `avg10`, `avg60`, `avg300`, `total` in that order, averages in 0...100 with digits and
    /// one point, totals as unsigned integers. Anything else is a ``PressureStallError``.
    public init(parsing text: String) throws(PressureStallError) {
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong(text.utf8.count) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var remaining = lines[...]
        if remaining.last == "" { remaining.removeLast() }
        guard let first = remaining.popFirst() else { throw .missingSome }
        let (someKind, some) = try Self.line(first, number: 1)
        guard someKind == "some" else { throw .missingSome }
        var full: Line?
        if let second = remaining.popFirst() {
            let (fullKind, parsed) = try Self.line(second, number: 2)
            guard fullKind == "full" else { throw .unexpectedLine(number: 2, String(second.prefix(80))) }
            full = parsed
        }
        if let extra = remaining.first { throw .unexpectedLine(number: 3, String(extra.prefix(80))) }
        self.init(some: some, full: full)
    }

    private static let keys = ["avg10", "avg60", "avg300", "total"]

    private static func line(_ text: Substring, number: Int) throws(PressureStallError) -> (Substring, Line) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 5 else { throw .unexpectedLine(number: number, String(text.prefix(80))) }
        var values: [Substring] = []
        for (key, field) in zip(keys, fields.dropFirst()) {
            guard field.hasPrefix(key + "=") else { throw .unexpectedLine(number: number, String(text.prefix(80))) }
            values.append(field.dropFirst(key.count + 1))
        }
        var averages: [Double] = []
        for (key, value) in zip(keys, values.prefix(3)) {
            guard let average = percentage(value) else {
                throw .badValue(line: number, key: key, String(value.prefix(40)))
            }
            averages.append(average)
        }
        guard values[3].allSatisfy(\.isASCIIDigit), let total = UInt64(values[3]) else {
            throw .badValue(line: number, key: "total", String(values[3].prefix(40)))
        }
        return (fields[0], Line(avg10: averages[0], avg60: averages[1], avg300: averages[2], total: total))
    }

    /// `12.34`: digits, one point, digits, within 0...100 (no sign, exponent, `nan` or `inf`,
    /// which `Double(_:)` would accept).
    private static func percentage(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCIIDigit) })
        else { return nil }
        guard let value = Double(text), value <= 100 else { return nil }
        return value
    }

    /// The file as the kernel writes it (two decimals).
    public var rendered: String {
        func render(_ kind: String, _ line: Line) -> String {
            "\(kind) avg10=\(Self.twoDecimals(line.avg10)) avg60=\(Self.twoDecimals(line.avg60)) "
                + "avg300=\(Self.twoDecimals(line.avg300)) total=\(line.total)\n"
        }
        return render("some", some) + (full.map { render("full", $0) } ?? "")
    }

    public static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}

/// Why a PSI file could not be parsed.
public enum PressureStallError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Longer than ``PressureStall/maximumLength``.
    case tooLong(Int)
    /// No `some` line first.
    case missingSome
    /// A line that is not `some|full avg10=… avg60=… avg300=… total=…` (1-based line number).
    case unexpectedLine(number: Int, String)
    /// A value that is not a percentage (averages) or an unsigned integer (total).
    case badValue(line: Int, key: String, String)

    public var description: String {
        switch self {
        case .tooLong(let count): return "\(count) bytes, more than a PSI file's \(PressureStall.maximumLength)"
        case .missingSome: return "no 'some' line first"
        case .unexpectedLine(let number, let text):
            return "line \(number) \"\(text)\" is not 'some|full avg10=N avg60=N avg300=N total=N'"
        case .badValue(let line, let key, let text): return "line \(line): \(key)=\(text) is not a valid value"
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
