import BackgroundCore

/// Decodes `Decodable` values from ``WireValue`` trees: the protocol's one decoder. A tree of
/// the wrong shape is a `DecodingError`, never a crash.
public struct WireDecoder {
    /// Creates a decoder.
    public init() {}

    /// The value the tree holds.
    public func decode<Value: Decodable>(_ type: Value.Type, from value: WireValue) throws -> Value {
        try decodeValue(type, from: value, path: [])
    }
}

private func mismatch(_ path: [any CodingKey], _ what: String) -> DecodingError {
    .dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: what))
}

private func integer<Integer: FixedWidthInteger>(
    _ type: Integer.Type,
    _ value: WireValue,
    _ path: [any CodingKey]
)
    throws -> Integer
{
    guard case .int(let raw) = value else { throw mismatch(path, "expected an integer") }
    if Integer.self == UInt64.self || Integer.self == UInt.self {
        return Integer(truncatingIfNeeded: UInt64(bitPattern: raw))
    }
    guard let exact = Integer(exactly: raw) else { throw mismatch(path, "integer \(raw) out of range") }
    return exact
}

private func decodeValue<Value: Decodable>(
    _ type: Value.Type,
    from value: WireValue,
    path: [any CodingKey]
) throws
    -> Value
{
    switch type {
    case is Instant.Type:
        return Instant(offset: try decodeValue(Duration.self, from: value, path: path)) as! Value
    case is Duration.Type:
        // Exact on the wire (two integers of attoseconds), so any Int128 could arrive: one past
        // the timeline (about ±7.3 × 10^10 years) is refused here, before any arithmetic.
        let duration = try Duration(from: TreeDecoder(value: value, codingPath: path))
        guard Instant.isOnTimeline(duration) else {
            throw mismatch(path, "a duration or instant beyond the timeline (more than Int64.max / 4 seconds)")
        }
        return duration as! Value
    case is ConditionWait.Type:
        return try decodeValue(ExactConditionWait.self, from: value, path: path).wait as! Value
    case is Bool.Type:
        guard case .bool(let bool) = value else { throw mismatch(path, "expected a boolean") }
        return bool as! Value
    case is String.Type:
        guard case .string(let string) = value else { throw mismatch(path, "expected a string") }
        return string as! Value
    case is Double.Type:
        guard case .double(let double) = value else { throw mismatch(path, "expected a number") }
        return double as! Value
    case is Float.Type:
        guard case .double(let double) = value else { throw mismatch(path, "expected a number") }
        return Float(double) as! Value
    case is Int.Type: return try integer(Int.self, value, path) as! Value
    case is Int8.Type: return try integer(Int8.self, value, path) as! Value
    case is Int16.Type: return try integer(Int16.self, value, path) as! Value
    case is Int32.Type: return try integer(Int32.self, value, path) as! Value
    case is Int64.Type: return try integer(Int64.self, value, path) as! Value
    case is UInt8.Type: return try integer(UInt8.self, value, path) as! Value
    case is UInt16.Type: return try integer(UInt16.self, value, path) as! Value
    case is UInt32.Type: return try integer(UInt32.self, value, path) as! Value
    case is UInt64.Type: return try integer(UInt64.self, value, path) as! Value
    case is UInt.Type: return try integer(UInt.self, value, path) as! Value
    default: return try Value(from: TreeDecoder(value: value, codingPath: path))
    }
}

struct TreeDecoder: Decoder {
    let value: WireValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .keyed(let pairs) = value else { throw mismatch(codingPath, "expected keyed values") }
        return KeyedDecodingContainer(KeyedReader<Key>(pairs: pairs, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let values) = value else { throw mismatch(codingPath, "expected an array") }
        return UnkeyedReader(values: values, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleReader(value: value, codingPath: codingPath)
    }
}

struct KeyedReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let pairs: [(key: String, value: WireValue)]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { pairs.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { pairs.contains { $0.key == key.stringValue } }

    private func value(for key: Key) throws -> WireValue {
        guard let pair = pairs.first(where: { $0.key == key.stringValue }) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(codingPath: codingPath, debugDescription: "missing")
            )
        }
        return pair.value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(for: key) == .null }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decodeValue(type, from: value(for: key), path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try TreeDecoder(value: value(for: key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: value(for: key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let found = pairs.first { $0.key == "super" }?.value ?? .null
        return TreeDecoder(value: found, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: try value(for: key), codingPath: codingPath + [key])
    }
}

struct UnkeyedReader: UnkeyedDecodingContainer {
    let values: [WireValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(values: [WireValue], codingPath: [any CodingKey]) {
        self.values = values
        self.codingPath = codingPath
    }

    var count: Int? { values.count }
    var isAtEnd: Bool { currentIndex >= values.count }

    private mutating func next() throws -> WireValue {
        guard !isAtEnd else { throw mismatch(codingPath, "array ended early") }
        defer { currentIndex += 1 }
        return values[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw mismatch(codingPath, "array ended early") }
        if values[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let path = codingPath + [IndexKey(currentIndex)]
        return try decodeValue(type, from: next(), path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try TreeDecoder(value: next(), codingPath: codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: next(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { TreeDecoder(value: try next(), codingPath: codingPath) }
}

struct SingleReader: SingleValueDecodingContainer {
    let value: WireValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try decodeValue(type, from: value, path: codingPath)
    }
}

/// A condition wait as the wire carries it: the duration exact (see `encodeValue`).
struct ExactConditionWait: Codable {
    let reason: WaitReason
    let duration: Duration

    init(_ wait: ConditionWait) {
        reason = wait.reason
        duration = wait.duration
    }

    var wait: ConditionWait { ConditionWait(reason: reason, duration: duration) }
}
