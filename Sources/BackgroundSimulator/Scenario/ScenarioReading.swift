/// The members of one JSON object of a scenario, checked against the keys the format defines.
///
/// Creating a reader rejects values that are not objects and keys the format does not define
/// (with a "did you mean" suggestion); its accessors read members with the path of each.
struct ObjectReader {
    let members: [String: JSONValue]
    let path: ScenarioPath

    /// - Parameters:
    ///   - what: What the object is, for the wrong-type message: `"an app"`, `"a step"`.
    ///   - keys: Every key the object may have.
    init(_ value: JSONValue, at path: ScenarioPath, what: String, keys: [String]) throws(ScenarioError) {
        guard case .object(let members) = value else {
            throw Read.wrongType(value, at: path, expected: "\(what) (an object)")
        }
        for key in members.keys.sorted() where !keys.contains(key) {
            let suggestion = closestMatch(to: key, among: keys)
            var message = "unknown key \(quoted(key))"
            if let suggestion {
                message += "; did you mean \(quoted(suggestion))?"
            } else {
                message += "; \(what) has the keys " + keys.map { quoted($0) }.joined(separator: ", ")
            }
            throw ScenarioError(
                code: .unknownKey,
                path: path.key(key).description,
                message: message,
                suggestion: suggestion
            )
        }
        self.members = members
        self.path = path
    }

    /// Whether the object has `key`.
    func has(_ key: String) -> Bool { members[key] != nil }

    /// The member `key` read with `read`, or nil when absent.
    func optional<T>(
        _ key: String,
        _ read: (JSONValue, ScenarioPath) throws(ScenarioError) -> T
    ) throws(ScenarioError) -> T? {
        guard let value = members[key] else { return nil }
        return try read(value, path.key(key))
    }

    /// The member `key` read with `read`; a ``ScenarioError/Code/missingKey`` error when absent.
    func required<T>(
        _ key: String,
        _ read: (JSONValue, ScenarioPath) throws(ScenarioError) -> T
    ) throws(ScenarioError) -> T {
        guard let value = members[key] else {
            throw ScenarioError(
                code: .missingKey,
                path: path.key(key).description,
                message: "the required key \(quoted(key)) is missing"
            )
        }
        return try read(value, path.key(key))
    }

    /// A ``ScenarioError/Code/conflict`` error for `key`, which is not allowed here.
    func conflict(_ key: String, _ message: String) -> ScenarioError {
        ScenarioError(code: .conflict, path: path.key(key).description, message: message)
    }
}

/// Readers of single values, each taking the value and its path.
enum Read {
    /// The longest app id or task identifier.
    static let maximumIdentifierLength = 255

    static func wrongType(_ value: JSONValue, at path: ScenarioPath, expected: String) -> ScenarioError {
        ScenarioError(
            code: .wrongType,
            path: path.description,
            message: "expected \(expected), found \(value.typeName)"
        )
    }

    static func string(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> String {
        guard case .string(let string) = value else { throw wrongType(value, at: path, expected: "a string") }
        return string
    }

    /// A string with at least one character that is not white space.
    static func text(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> String {
        let string = try self.string(value, at: path)
        guard string.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw ScenarioError(code: .invalidValue, path: path.description, message: "must not be empty")
        }
        return string
    }

    static func bool(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> Bool {
        guard case .bool(let bool) = value else { throw wrongType(value, at: path, expected: "true or false") }
        return bool
    }

    /// A number between 0 and 1, inclusive.
    static func fraction(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> Double {
        guard let number = value.doubleValue else { throw wrongType(value, at: path, expected: "a number from 0 to 1") }
        guard (0...1).contains(number) else {
            throw ScenarioError(code: .outOfRange, path: path.description, message: "\(number) is not between 0 and 1")
        }
        return number
    }

    static func duration(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> Duration {
        guard case .string(let text) = value else {
            throw wrongType(value, at: path, expected: "a duration string such as \"90s\" or \"1h30m\"")
        }
        return try ScenarioTime.parseDuration(text, at: path)
    }

    /// A duration greater than zero.
    static func positiveDuration(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> Duration {
        let duration = try self.duration(value, at: path)
        guard duration > .zero else {
            throw ScenarioError(code: .outOfRange, path: path.description, message: "must be longer than 0s")
        }
        return duration
    }

    /// An app id or task identifier: 1 to 255 ASCII letters, digits, `.`, `-` and `_`.
    static func identifier(_ value: JSONValue, at path: ScenarioPath) throws(ScenarioError) -> String {
        let string = try self.string(value, at: path)
        try checkIdentifier(string, at: path)
        return string
    }

    static func checkIdentifier(_ string: String, at path: ScenarioPath) throws(ScenarioError) {
        guard !string.isEmpty else {
            throw ScenarioError(code: .invalidValue, path: path.description, message: "an identifier must not be empty")
        }
        guard string.utf8.count <= maximumIdentifierLength else {
            throw ScenarioError(
                code: .limitExceeded,
                path: path.description,
                message: "an identifier is longer than \(maximumIdentifierLength) characters"
            )
        }
        let allowed = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || [0x2E, 0x2D, 0x5F].contains(byte)
        }
        guard string.utf8.allSatisfy(allowed) else {
            throw ScenarioError(
                code: .invalidValue,
                path: path.description,
                message: "\(quoted(string)) is not an identifier; use letters, digits, '.', '-' and '_', as in "
                    + "\"com.example.news.refresh\""
            )
        }
    }

    /// One of a string enumeration's raw values, with a suggestion for a near miss.
    static func choice<T: CaseIterable & RawRepresentable<String>>(
        _ value: JSONValue,
        at path: ScenarioPath,
        what: String
    ) throws(ScenarioError) -> T {
        if case .string(let text) = value, let choice = T(rawValue: text) { return choice }
        let names = T.allCases.map(\.rawValue)
        let listed = names.map { quoted($0) }.joined(separator: ", ")
        guard case .string(let text) = value else { throw wrongType(value, at: path, expected: "one of \(listed)") }
        let suggestion = closestMatch(to: text, among: names)
        throw ScenarioError(
            code: .invalidValue,
            path: path.description,
            message: "\(quoted(text)) is not \(what); expected one of \(listed)"
                + (suggestion.map { "; did you mean \(quoted($0))?" } ?? ""),
            suggestion: suggestion
        )
    }

    /// The elements of an array of at most `limit` elements.
    static func array(_ value: JSONValue, at path: ScenarioPath, limit: Int) throws(ScenarioError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw wrongType(value, at: path, expected: "an array") }
        guard elements.count <= limit else {
            throw ScenarioError(
                code: .limitExceeded,
                path: path.description,
                message: "has \(elements.count) elements; the limit is \(limit)"
            )
        }
        return elements
    }

    /// Each element of an array of at most `limit` elements, read with `read`.
    static func list<T>(
        _ value: JSONValue,
        at path: ScenarioPath,
        limit: Int,
        _ read: (JSONValue, ScenarioPath) throws(ScenarioError) -> T
    ) throws(ScenarioError) -> [T] {
        var result: [T] = []
        for (index, element) in try array(value, at: path, limit: limit).enumerated() {
            result.append(try read(element, path.index(index)))
        }
        return result
    }
}
