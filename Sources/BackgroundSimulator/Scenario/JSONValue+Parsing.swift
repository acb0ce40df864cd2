public import Foundation

extension JSONValue {
    /// The deepest nesting of arrays and objects the parser accepts.
    public static let maximumDepth = 64
    /// The longest string (in Unicode scalars), object key or number literal the parser accepts.
    public static let maximumStringLength = 4096

    /// Parses a UTF-8 JSON document (RFC 8259), strictly and within limits.
    ///
    /// Unlike `JSONSerialization` it rejects duplicate object keys, keeps integers exact, and
    /// bounds what untrusted input can cost: nesting deeper than ``maximumDepth`` and strings
    /// longer than ``maximumStringLength`` are errors. A leading byte order mark is skipped.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: Data(#"{"seed": 18446744073709551615}"#.utf8))
    /// value["seed"]   // .integer(18446744073709551615)
    /// ```
    ///
    /// - Parameter data: The document.
    /// - Throws: ``ScenarioError`` with code ``ScenarioError/Code/malformedJSON`` (with line and
    ///   column), ``ScenarioError/Code/duplicate``, ``ScenarioError/Code/limitExceeded`` or
    ///   ``ScenarioError/Code/outOfRange`` (a number too large for a `Double`).
    public init(parsing data: Data) throws(ScenarioError) {
        var parser = JSONParser(bytes: Array(data))
        self = try parser.parseDocument()
    }
}

/// A recursive-descent JSON parser that tracks the path of the value it is reading.
private struct JSONParser {
    private enum Component {
        case key(String)
        case index(Int)
    }

    private static let simpleEscapes: [UInt8: UInt8] = [
        UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
        UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
    ]

    private let bytes: [UInt8]
    private var offset = 0
    private var components: [Component] = []
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(ScenarioError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard offset == bytes.count else { throw syntaxError("unexpected \(found()) after the end of the document") }
        return value
    }

    private mutating func parseValue() throws(ScenarioError) -> JSONValue {
        guard offset < bytes.count else { throw syntaxError("expected a value, found the end of the data") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw syntaxError("expected a value, found \(found())")
        }
    }

    private mutating func parseObject() throws(ScenarioError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        offset += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw syntaxError("expected a string key, found \(found())")
            }
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { throw syntaxError("expected ':' after a key, found \(found())") }
            skipWhitespace()
            components.append(.key(key))
            if members[key] != nil {
                throw ScenarioError(code: .duplicate, path: path, message: "the key \(quoted(key)) appears twice")
            }
            members[key] = try parseValue()
            components.removeLast()
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { break }
            guard consume(UInt8(ascii: ",")) else { throw syntaxError("expected ',' or '}', found \(found())") }
            skipWhitespace()
        }
        return .object(members)
    }

    private mutating func parseArray() throws(ScenarioError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        while true {
            components.append(.index(elements.count))
            elements.append(try parseValue())
            components.removeLast()
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { break }
            guard consume(UInt8(ascii: ",")) else { throw syntaxError("expected ',' or ']', found \(found())") }
            skipWhitespace()
        }
        return .array(elements)
    }

    /// Counts one more level of nesting; the caller decrements ``depth`` when the container ends.
    private mutating func enterContainer() throws(ScenarioError) {
        guard depth < JSONValue.maximumDepth else {
            throw ScenarioError(
                code: .limitExceeded,
                path: path,
                message: "arrays and objects are nested more than \(JSONValue.maximumDepth) levels deep"
            )
        }
        depth += 1
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(ScenarioError) -> JSONValue {
        let expected = Array(word.utf8)
        guard bytes[offset...].starts(with: expected) else { throw syntaxError("expected a value, found \(found())") }
        offset += expected.count
        return value
    }

    private mutating func parseNumber() throws(ScenarioError) -> JSONValue {
        let start = offset
        var isInteger = true
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard consumeDigits() else { throw syntaxError("expected a digit, found \(found())") }
        }
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard consumeDigits() else { throw syntaxError("expected a digit after '.', found \(found())") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isInteger = false
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard consumeDigits() else { throw syntaxError("expected a digit in the exponent, found \(found())") }
        }
        guard offset - start <= JSONValue.maximumStringLength else {
            throw ScenarioError(code: .limitExceeded, path: path, message: "a number literal is too long")
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if isInteger, let integer = Int128(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            throw ScenarioError(
                code: .outOfRange,
                path: path,
                message: "the number \(text.prefix(40))\(text.count > 40 ? "…" : "") is too large"
            )
        }
        return .double(double)
    }

    private mutating func consumeDigits() -> Bool {
        let start = offset
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
        return offset > start
    }

    private mutating func parseString() throws(ScenarioError) -> String {
        offset += 1
        let start = offset
        var scalarCount = 0
        // Fast path: no escapes, so the string is a slice of the input.
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte & 0xC0 != 0x80 { scalarCount += 1 }
            offset += 1
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "\""), scalarCount <= JSONValue.maximumStringLength {
            offset += 1
            guard let string = String(validating: bytes[start..<offset - 1], as: UTF8.self) else {
                throw syntaxError("a string is not valid UTF-8")
            }
            return string
        }
        offset = start
        return try parseEscapedString()
    }

    private mutating func parseEscapedString() throws(ScenarioError) -> String {
        var utf8: [UInt8] = []
        var scalarCount = 0
        while true {
            guard offset < bytes.count else { throw syntaxError("unterminated string") }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 {
                throw syntaxError("a control character (byte 0x\(hex(byte))) must be escaped in a string")
            }
            if byte == UInt8(ascii: "\\") {
                try appendEscape(to: &utf8)
            } else {
                utf8.append(byte)
                offset += 1
            }
            if byte & 0xC0 != 0x80 { scalarCount += 1 }
            guard scalarCount <= JSONValue.maximumStringLength else {
                throw ScenarioError(
                    code: .limitExceeded,
                    path: path,
                    message: "a string is longer than \(JSONValue.maximumStringLength) characters"
                )
            }
        }
        offset += 1
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw syntaxError("a string is not valid UTF-8")
        }
        return string
    }

    private mutating func appendEscape(to utf8: inout [UInt8]) throws(ScenarioError) {
        offset += 1
        guard offset < bytes.count else { throw syntaxError("unterminated string") }
        let escaped = bytes[offset]
        offset += 1
        if let byte = Self.simpleEscapes[escaped] {
            utf8.append(byte)
            return
        }
        guard escaped == UInt8(ascii: "u") else { throw syntaxError("invalid escape '\\\(character(escaped))'") }
        var value = try parseHex4()
        if (0xD800...0xDBFF).contains(value) {
            guard bytes[offset...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                throw syntaxError("a high surrogate must be followed by a low surrogate")
            }
            offset += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw syntaxError("invalid low surrogate") }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { throw syntaxError("a lone surrogate \\u escape") }
        utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    private mutating func parseHex4() throws(ScenarioError) -> UInt32 {
        guard offset + 4 <= bytes.count,
            let value = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16),
            bytes[offset..<offset + 4].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
        else { throw syntaxError("expected four hexadecimal digits after '\\u'") }
        offset += 4
        return value
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard offset < bytes.count, bytes[offset] == byte else { return false }
        offset += 1
        return true
    }

    private var path: String {
        var path = ScenarioPath.root
        for component in components {
            switch component {
            case .key(let key): path = path.key(key)
            case .index(let index): path = path.index(index)
            }
        }
        return path.description
    }

    private func found() -> String {
        guard offset < bytes.count else { return "the end of the data" }
        let byte = bytes[offset]
        return (0x21...0x7E).contains(byte) ? "'\(character(byte))'" : "byte 0x\(hex(byte))"
    }

    private func character(_ byte: UInt8) -> String { String(UnicodeScalar(byte)) }

    private func hex(_ byte: UInt8) -> String { String(byte, radix: 16, uppercase: true).leftPadded(to: 2) }

    private func syntaxError(_ message: String) -> ScenarioError {
        let consumed = bytes[..<min(offset, bytes.count)]
        let line = consumed.count(where: { $0 == 0x0A }) + 1
        let lineStart = consumed.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = bytes[lineStart..<consumed.endIndex].count(where: { $0 & 0xC0 != 0x80 }) + 1
        return ScenarioError(code: .malformedJSON, path: "", message: "line \(line), column \(column): \(message)")
    }
}
