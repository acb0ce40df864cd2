/// A condition on a number in a scenario's expectations: equal to, at least, at most, or within
/// a closed range.
///
/// Written as a JSON number (equal to it) or a string: `"== 3"`, `">= 3"`, `"<= 2"`, `"1...5"`.
/// Spaces after the operator and around `...` are optional.
///
/// ```swift
/// let count = ScenarioComparison<Int>.atLeast(3)
/// count.matches(4)         // true
/// count.description        // ">= 3"
/// ScenarioComparison.between(0.1...0.5).matches(0.05)   // false
/// ```
public enum ScenarioComparison<Value: Comparable & Sendable & Hashable>: Sendable, Hashable, CustomStringConvertible {
    /// `3` or `"== 3"`: exactly this value.
    case equal(Value)
    /// `">= 3"`: this value or more.
    case atLeast(Value)
    /// `"<= 2"`: this value or less.
    case atMost(Value)
    /// `"1...5"`: within this closed range.
    case between(ClosedRange<Value>)

    /// Whether `value` satisfies the condition.
    public func matches(_ value: Value) -> Bool {
        switch self {
        case .equal(let expected): return value == expected
        case .atLeast(let bound): return value >= bound
        case .atMost(let bound): return value <= bound
        case .between(let range): return range.contains(value)
        }
    }

    /// The condition as written in a file: `"== 3"`, `">= 3"`, `"<= 2"` or `"1...5"`.
    public var description: String {
        switch self {
        case .equal(let value): return "== \(value)"
        case .atLeast(let value): return ">= \(value)"
        case .atMost(let value): return "<= \(value)"
        case .between(let range): return "\(range.lowerBound)...\(range.upperBound)"
        }
    }

    /// The condition in the format's JSON form: a number for ``equal(_:)``, else a string.
    func jsonValue(_ number: (Value) -> JSONValue) -> JSONValue {
        if case .equal(let value) = self { return number(value) }
        return .string(description)
    }

    /// Parses the string form, with `parse` reading each number and `range` the values allowed.
    static func parse(
        _ text: String,
        at path: ScenarioPath,
        range: ClosedRange<Value>,
        parse: (Substring) -> Value?
    ) throws(ScenarioError) -> ScenarioComparison {
        let trimmed = text.trimmingSpaces()
        func number(_ part: Substring) throws(ScenarioError) -> Value {
            guard let value = parse(part.trimmingSpaces()) else {
                throw ScenarioError(
                    code: .invalidValue,
                    path: path.description,
                    message:
                        "\(quoted(text)) is not a comparison; write a number, \"== 3\", \">= 3\", \"<= 2\" or \"1...5\""
                )
            }
            guard range.contains(value) else {
                throw ScenarioError(
                    code: .outOfRange,
                    path: path.description,
                    message: "\(value) in \(quoted(text)) is not between \(range.lowerBound) and \(range.upperBound)"
                )
            }
            return value
        }
        for (prefix, make) in [("==", Self.equal), (">=", Self.atLeast), ("<=", Self.atMost)]
        where trimmed.hasPrefix(prefix) {
            return make(try number(trimmed.dropFirst(2)))
        }
        guard let dots = trimmed.firstRange(of: "...") else { return .equal(try number(trimmed)) }
        let lower = try number(trimmed[..<dots.lowerBound])
        let upper = try number(trimmed[dots.upperBound...])
        guard lower <= upper else {
            throw ScenarioError(
                code: .invalidValue,
                path: path.description,
                message: "the range \(quoted(text)) is empty: its lower bound is greater than its upper bound"
            )
        }
        return .between(lower...upper)
    }
}

extension ScenarioComparison<Int> {
    /// Reads a count: a whole number from 0 to 1,000,000,000, or a comparison string of them.
    static func count(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> ScenarioComparison<Int> {
        let range = 0...1_000_000_000
        switch value {
        case .integer(let integer):
            guard let count = Int(exactly: integer), range.contains(count) else {
                throw ScenarioError(
                    code: .outOfRange,
                    path: path.description,
                    message: "\(integer) is not a count from 0 to 1000000000"
                )
            }
            return .equal(count)
        case .string(let text):
            return try parse(text, at: path, range: range) { part in
                part.allSatisfy({ ("0"..."9").contains($0) }) && part.count <= 12 ? Int(part) : nil
            }
        default:
            throw Read.wrongType(value, at: path, expected: "a count such as 3, \">= 3\", \"<= 2\" or \"1...5\"")
        }
    }
}

extension ScenarioComparison<Double> {
    /// Reads a condition on a fraction: a number from 0 to 1, or a comparison string of them.
    static func fraction(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> ScenarioComparison<Double>
    {
        switch value {
        case .integer, .double:
            return .equal(try Read.fraction(value, at: path))
        case .string(let text):
            return try parse(text, at: path, range: 0...1) { part in
                isDecimalLiteral(part) ? Double(part).flatMap { $0.isFinite ? $0 : nil } : nil
            }
        default:
            throw Read.wrongType(
                value,
                at: path,
                expected: "a number from 0 to 1, or \">= 0.1\", \"<= 0.5\", \"0.1...0.5\""
            )
        }
    }
}

/// Whether `text` is a decimal number as the schema's pattern reads it: digits, optionally a
/// fraction (`.` and digits) and an exponent (`e` or `E`, a sign, digits); at most 32 characters.
private func isDecimalLiteral(_ text: Substring) -> Bool {
    guard text.count <= 32 else { return false }
    var rest = text[...]
    func digits() -> Bool {
        let count = rest.prefix { ("0"..."9").contains($0) }.count
        rest = rest.dropFirst(count)
        return count > 0
    }
    guard digits() else { return false }
    if rest.first == "." {
        rest = rest.dropFirst()
        guard digits() else { return false }
    }
    if rest.first == "e" || rest.first == "E" {
        rest = rest.dropFirst()
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        guard digits() else { return false }
    }
    return rest.isEmpty
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    func trimmingSpaces() -> Substring {
        let text = Substring(self)
        guard let first = text.firstIndex(where: { $0 != " " }), let last = text.lastIndex(where: { $0 != " " }) else {
            return text[text.endIndex...]
        }
        return text[first...last]
    }
}
