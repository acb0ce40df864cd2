/// A value decoded from (or written to) a D-Bus message, by its signature (D-Bus specification,
/// "Type System"). Integers keep their sign, not their width: the signature says the width.
indirect enum DBusValue: Sendable, Hashable {
    /// `y`.
    case byte(UInt8)
    /// `b`.
    case bool(Bool)
    /// `n`, `i`, `x`.
    case int(Int64)
    /// `q`, `u`, `t`.
    case uint(UInt64)
    /// `d`.
    case double(Double)
    /// `s`, `o` and `g`.
    case string(String)
    /// `a…` other than a dictionary.
    case array([DBusValue])
    /// `a{…}`: looked up by key, never iterated in an order that reaches an effect (the writer
    /// sorts the pairs).
    case dictionary([DBusValue: DBusValue])
    /// `(…)`.
    case structure([DBusValue])
    /// `v`: the inner value's signature and the value.
    case variant(signature: String, DBusValue)
    /// `h`: an index into the message's descriptors (never received here: no descriptors are
    /// negotiated).
    case unixFD(UInt32)

    /// The string, unwrapping a variant.
    var text: String? {
        switch self {
        case .string(let text): return text
        case .variant(_, let inner): return inner.text
        default: return nil
        }
    }

    /// The boolean, unwrapping a variant.
    var boolean: Bool? {
        switch self {
        case .bool(let value): return value
        case .variant(_, let inner): return inner.boolean
        default: return nil
        }
    }

    /// The unsigned integer, unwrapping a variant.
    var unsigned: UInt64? {
        switch self {
        case .uint(let value): return value
        case .variant(_, let inner): return inner.unsigned
        default: return nil
        }
    }

    /// The fields of a structure, unwrapping a variant.
    var fields: [DBusValue]? {
        switch self {
        case .structure(let fields): return fields
        case .variant(_, let inner): return inner.fields
        default: return nil
        }
    }

    /// A variant holding `value` of type `signature`.
    static func variant(_ signature: String, _ value: DBusValue) -> DBusValue {
        .variant(signature: signature, value)
    }
}

/// Why a D-Bus exchange failed.
enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer sent something that is not valid D-Bus, or a value does not match its type.
    case malformed(String)

    var description: String {
        switch self {
        case .malformed(let what): return "malformed D-Bus message: \(what)"
        }
    }
}

/// Signatures: complete types and alignments (D-Bus specification, "Type System").
enum DBusSignature {
    /// The deepest nesting read or written (the specification allows 64; these messages need 4).
    static let maximumDepth = 32

    /// Splits the first complete type off `signature`.
    static func completeType(_ signature: inout Substring) throws(DBusError) -> Substring {
        guard let first = signature.first else { throw .malformed("an empty signature") }
        var end = signature.index(after: signature.startIndex)
        switch first {
        case "a":
            var rest = signature[end...]
            let element = try completeType(&rest)
            end = element.endIndex
        case "(", "{":
            let close: Character = first == "(" ? ")" : "}"
            var rest = signature[end...]
            guard rest.first != close else { throw .malformed("an empty \(first)\(close) in a signature") }
            while rest.first != close {
                guard !rest.isEmpty else { throw .malformed("an unclosed \(first) in a signature") }
                _ = try completeType(&rest)
            }
            end = signature.index(after: rest.startIndex)
        case "y", "b", "n", "q", "i", "u", "x", "t", "d", "h", "s", "o", "g", "v":
            break
        default:
            throw .malformed("the type code '\(first)'")
        }
        let type = signature[..<end]
        signature = signature[end...]
        return type
    }

    /// Every complete type of `signature`, in order.
    static func types(_ signature: String) throws(DBusError) -> [Substring] {
        var rest = Substring(signature)
        var types: [Substring] = []
        while !rest.isEmpty { types.append(try completeType(&rest)) }
        return types
    }

    /// The alignment of a type by its first character (the specification's table).
    static func alignment(of type: Character?) -> Int {
        switch type {
        case "y", "g", "v": return 1
        case "n", "q": return 2
        case "x", "t", "d", "(", "{": return 8
        default: return 4
        }
    }
}
