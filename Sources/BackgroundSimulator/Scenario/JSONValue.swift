/// A JSON document as a tree of values: what a scenario file is before it is checked.
///
/// The scenario reader parses a file into a `JSONValue` with its own strict parser (duplicate
/// keys, excessive depth and over-long strings are errors), then builds a ``Scenario`` from it,
/// tracking the path of every value for error messages. Values the format keeps raw, such as an
/// app's ``Scenario/App/manifest``, stay `JSONValue`s.
///
/// Integers keep their exact value (`Int128` covers every `Int64` and `UInt64`); numbers with a
/// fraction or an exponent, and integers too large for `Int128`, are ``double(_:)``.
///
/// ```swift
/// let manifest: JSONValue = [
///     "BGTaskSchedulerPermittedIdentifiers": ["com.example.news.refresh"],
///     "UIBackgroundModes": ["fetch", "processing"],
/// ]
/// manifest["UIBackgroundModes"]?.arrayValue?.count   // 2
/// ```
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or an exponent, such as `7` or `-3`.
    case integer(Int128)
    /// A number written with a fraction or an exponent, such as `0.25` or `1e3`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Keys are unique; their order in the file is not kept.
    case object([String: JSONValue])

    /// The name of the value's JSON type, for error messages: `null`, `a boolean`, `a number`,
    /// `a string`, `an array` or `an object`.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The string, if the value is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean, if the value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, if the value is a number (integers are converted).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The integer, if the value is a number without a fraction or an exponent.
    public var integerValue: Int128? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements, if the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if the value is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The member named `key`, if the value is an object that has one.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// Creates `null`.
    public init(nilLiteral: ()) { self = .null }
    /// Creates a Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// Creates an integer.
    public init(integerLiteral value: Int) { self = .integer(Int128(value)) }
    /// Creates a number with a fraction.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// Creates a string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Creates an object; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value: `null`, a Boolean, an integer, another number, a string, an
    /// array or an object.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of these.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(Int128(value))
        } else if let value = try? container.decode(UInt64.self) {
            self = .integer(Int128(value))
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value; integers outside `Int64` and `UInt64` are encoded as `Double`s.
    ///
    /// - Throws: The encoder's errors, for example for a non-finite ``double(_:)``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value):
            if let small = Int64(exactly: value) {
                try container.encode(small)
            } else if let unsigned = UInt64(exactly: value) {
                try container.encode(unsigned)
            } else {
                try container.encode(Double(value))
            }
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
