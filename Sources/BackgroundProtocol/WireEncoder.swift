import BackgroundCore

/// Encodes `Encodable` values into ``WireValue`` trees: the protocol's one encoder.
public struct WireEncoder {
    /// Creates an encoder.
    public init() {}

    /// The value as a tree.
    public func encode<Value: Encodable>(_ value: Value) throws -> WireValue {
        let root = WireNode()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return root.value
    }
}

/// A value being built; containers fill it in place.
final class WireNode {
    enum Content {
        case empty
        case single(WireValue)
        case array([WireNode])
        case keyed([(String, WireNode)])
    }

    var content: Content = .empty

    var value: WireValue {
        switch content {
        case .empty: return .keyed([])
        case .single(let value): return value
        case .array(let nodes): return .array(nodes.map(\.value))
        case .keyed(let pairs): return .keyed(pairs.map { (key: $0.0, value: $0.1.value) })
        }
    }

    func appendChild() -> WireNode {
        let child = WireNode()
        if case .array(var nodes) = content {
            nodes.append(child)
            content = .array(nodes)
        } else {
            content = .array([child])
        }
        return child
    }

    func child(for key: String) -> WireNode {
        let child = WireNode()
        if case .keyed(var pairs) = content {
            pairs.append((key, child))
            content = .keyed(pairs)
        } else {
            content = .keyed([(key, child)])
        }
        return child
    }
}

struct TreeEncoder: Encoder {
    let node: WireNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([]) }
        return KeyedEncodingContainer(KeyedWriter<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedWriter(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleWriter(node: node, codingPath: codingPath)
    }
}

/// Scalars as wire values; anything else through its own `encode(to:)`.
///
/// Instants and condition waits go exactly (their `Duration`'s two integers): their own
/// `Codable` forms write seconds as a `Double` for readable JSON, which loses precision (an
/// instant on a machine up for more than about 100 days, a wait's attoseconds), and a message
/// must come back equal.
private func encodeValue<Value: Encodable>(_ value: Value, into node: WireNode, path: [any CodingKey]) throws {
    switch value {
    case let value as Instant: try encodeValue(value.offset, into: node, path: path)
    case let value as ConditionWait: try encodeValue(ExactConditionWait(value), into: node, path: path)
    case let value as Bool: node.content = .single(.bool(value))
    case let value as String: node.content = .single(.string(value))
    case let value as Double: node.content = .single(.double(value))
    case let value as Float: node.content = .single(.double(Double(value)))
    case let value as Int: node.content = .single(.int(Int64(value)))
    case let value as Int8: node.content = .single(.int(Int64(value)))
    case let value as Int16: node.content = .single(.int(Int64(value)))
    case let value as Int32: node.content = .single(.int(Int64(value)))
    case let value as Int64: node.content = .single(.int(value))
    case let value as UInt8: node.content = .single(.int(Int64(value)))
    case let value as UInt16: node.content = .single(.int(Int64(value)))
    case let value as UInt32: node.content = .single(.int(Int64(value)))
    case let value as UInt64: node.content = .single(.int(Int64(bitPattern: value)))
    case let value as UInt: node.content = .single(.int(Int64(bitPattern: UInt64(value))))
    default: try value.encode(to: TreeEncoder(node: node, codingPath: path))
    }
}

struct KeyedWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: WireNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(for: key.stringValue).content = .single(.null) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try encodeValue(value, into: node.child(for: key.stringValue), path: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(for: key.stringValue)
        child.content = .keyed([])
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(for: key.stringValue)
        child.content = .array([])
        return UnkeyedWriter(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.child(for: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.child(for: key.stringValue), codingPath: codingPath + [key])
    }
}

struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

struct UnkeyedWriter: UnkeyedEncodingContainer {
    let node: WireNode
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let nodes) = node.content { return nodes.count }
        return 0
    }

    mutating func encodeNil() throws { node.appendChild().content = .single(.null) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let path = codingPath + [IndexKey(count)]
        try encodeValue(value, into: node.appendChild(), path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<
        NestedKey
    > {
        let child = node.appendChild()
        child.content = .keyed([])
        return KeyedEncodingContainer(KeyedWriter<NestedKey>(node: child, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = node.appendChild()
        child.content = .array([])
        return UnkeyedWriter(node: child, codingPath: codingPath)
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.appendChild(), codingPath: codingPath) }
}

struct SingleWriter: SingleValueEncodingContainer {
    let node: WireNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .single(.null) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try encodeValue(value, into: node, path: codingPath)
    }
}
