/// The protocol's data model: what one encoded value is, before it is bytes.
///
/// Every message is a tree of these. The byte form is a tag byte followed by the value:
/// `0` null; `1`/`2` false/true; `3` a signed 64-bit integer and `4` a double, 8 bytes little
/// endian; `5` a UTF-8 string, its length as 4 bytes little endian, then its bytes; `6` an
/// array, its count then its elements; `7` a keyed value, its count then (string key, value)
/// pairs in order.
public indirect enum WireValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([WireValue])
    case keyed([(key: String, value: WireValue)])

    public static func == (lhs: WireValue, rhs: WireValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.keyed(let a), .keyed(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .double(let value): hasher.combine(value.bitPattern)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .keyed(let pairs):
            for pair in pairs {
                hasher.combine(pair.key)
                hasher.combine(pair.value)
            }
        }
    }
}

/// Bounds every decoder applies: input from another process is untrusted.
public struct WireLimits: Sendable, Hashable {
    /// The largest message, in bytes.
    public var maximumMessageBytes: Int
    /// The deepest nesting of arrays and keyed values.
    public var maximumDepth: Int
    /// The most elements of one array or keyed value.
    public var maximumCount: Int

    /// Creates limits.
    public init(maximumMessageBytes: Int = 1 << 20, maximumDepth: Int = 32, maximumCount: Int = 100_000) {
        self.maximumMessageBytes = maximumMessageBytes
        self.maximumDepth = maximumDepth
        self.maximumCount = maximumCount
    }

    /// 1 MiB, 32 levels, 100,000 elements.
    public static let standard = WireLimits()
}

/// Why bytes could not be decoded: always this typed error, never a crash.
public enum WireError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message is larger than the limit.
    case tooLarge(bytes: Int, limit: Int)
    /// The bytes end before the value does.
    case truncated(at: Int)
    /// A tag byte that is not one of the protocol's.
    case unknownTag(UInt8, at: Int)
    /// Nesting deeper than the limit.
    case tooDeep(limit: Int)
    /// An array or keyed value with more elements than the limit.
    case tooMany(count: Int, limit: Int)
    /// A string that is not valid UTF-8.
    case invalidUTF8(at: Int)
    /// Bytes left over after the message.
    case trailingBytes(count: Int)
    /// The message does not start with the protocol's magic bytes.
    case notAMessage
    /// The message's protocol version is not one this side speaks.
    case unsupportedVersion(UInt8)
    /// The value does not have the shape the message type needs.
    case shape(String)

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): return "message of \(bytes) bytes is larger than the limit of \(limit)"
        case .truncated(let offset): return "message ends early, at byte \(offset)"
        case .unknownTag(let tag, let offset): return "unknown tag \(tag) at byte \(offset)"
        case .tooDeep(let limit): return "nested deeper than \(limit) levels"
        case .tooMany(let count, let limit): return "\(count) elements, more than the limit of \(limit)"
        case .invalidUTF8(let offset): return "string at byte \(offset) is not UTF-8"
        case .trailingBytes(let count): return "\(count) bytes after the message"
        case .notAMessage: return "not a background-execution protocol message"
        case .unsupportedVersion(let version): return "protocol version \(version) is not supported"
        case .shape(let what): return "unexpected message content: \(what)"
        }
    }
}

extension WireValue {
    /// The value's bytes.
    public func write(into bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(0)
        case .bool(let value): bytes.append(value ? 2 : 1)
        case .int(let value):
            bytes.append(3)
            Self.append(UInt64(bitPattern: value), into: &bytes)
        case .double(let value):
            bytes.append(4)
            Self.append(value.bitPattern, into: &bytes)
        case .string(let value):
            bytes.append(5)
            Self.append(value, into: &bytes)
        case .array(let values):
            bytes.append(6)
            Self.append(UInt32(values.count), into: &bytes)
            for value in values { value.write(into: &bytes) }
        case .keyed(let pairs):
            bytes.append(7)
            Self.append(UInt32(pairs.count), into: &bytes)
            for pair in pairs {
                Self.append(pair.key, into: &bytes)
                pair.value.write(into: &bytes)
            }
        }
    }

    private static func append(_ string: String, into bytes: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        append(UInt32(utf8.count), into: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Reads one value from `bytes`, checking every length against what is left and `limits`.
    public static func read(_ bytes: [UInt8], limits: WireLimits = .standard) throws(WireError) -> WireValue {
        guard bytes.count <= limits.maximumMessageBytes else {
            throw .tooLarge(bytes: bytes.count, limit: limits.maximumMessageBytes)
        }
        var reader = WireReader(bytes: bytes, limits: limits)
        let value = try reader.value(depth: 0)
        guard reader.offset == bytes.count else { throw .trailingBytes(count: bytes.count - reader.offset) }
        return value
    }
}

/// A bounds-checked cursor over untrusted bytes.
struct WireReader {
    let bytes: [UInt8]
    let limits: WireLimits
    var offset = 0

    mutating func byte() throws(WireError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(at: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws(WireError) -> Integer {
        let size = MemoryLayout<Integer>.size
        guard bytes.count - offset >= size else { throw .truncated(at: offset) }
        var value: Integer = 0
        for index in 0..<size { value |= Integer(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    mutating func count() throws(WireError) -> Int {
        let count = Int(try integer(UInt32.self))
        guard count <= limits.maximumCount else { throw .tooMany(count: count, limit: limits.maximumCount) }
        // Every element takes at least one byte: a count larger than what is left is a lie.
        guard count <= bytes.count - offset else { throw .truncated(at: offset) }
        return count
    }

    mutating func string() throws(WireError) -> String {
        let start = offset
        let length = Int(try integer(UInt32.self))
        guard bytes.count - offset >= length else { throw .truncated(at: offset) }
        let slice = bytes[offset..<(offset + length)]
        offset += length
        guard let string = String(validating: slice, as: UTF8.self) else { throw .invalidUTF8(at: start) }
        return string
    }

    mutating func value(depth: Int) throws(WireError) -> WireValue {
        guard depth <= limits.maximumDepth else { throw .tooDeep(limit: limits.maximumDepth) }
        let tagOffset = offset
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(Int64(bitPattern: try integer(UInt64.self)))
        case 4: return .double(Double(bitPattern: try integer(UInt64.self)))
        case 5: return .string(try string())
        case 6:
            let count = try count()
            var values: [WireValue] = []
            for _ in 0..<count { values.append(try value(depth: depth + 1)) }
            return .array(values)
        case 7:
            let count = try count()
            var pairs: [(key: String, value: WireValue)] = []
            for _ in 0..<count {
                let key = try string()
                pairs.append((key, try value(depth: depth + 1)))
            }
            return .keyed(pairs)
        case let tag: throw .unknownTag(tag, at: tagOffset)
        }
    }
}
