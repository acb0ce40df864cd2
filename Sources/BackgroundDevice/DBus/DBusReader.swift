/// Reads the wire format of one message, either byte order, bounded: every read is checked
/// against the end, nesting is limited (``DBusSignature/maximumDepth``), strings must be UTF-8
/// ending in NUL, booleans 0 or 1.
struct DBusReader {
    let bytes: [UInt8]
    let little: Bool
    var offset = 0
    private var depth = 0

    init(_ bytes: [UInt8], little: Bool) {
        self.bytes = bytes
        self.little = little
    }

    mutating func align(_ boundary: Int) {
        offset = (offset + boundary - 1) / boundary * boundary
    }

    private mutating func take(_ count: Int, alignment: Int) throws(DBusError) -> ArraySlice<UInt8> {
        align(alignment)
        guard count >= 0, offset <= bytes.count, count <= bytes.count - offset else {
            throw .malformed("truncated")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    private mutating func unsigned(_ size: Int) throws(DBusError) -> UInt64 {
        let slice = try take(size, alignment: size)
        let ordered = little ? Array(slice) : slice.reversed()
        var value: UInt64 = 0
        for (index, byte) in ordered.enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        return value
    }

    mutating func byte() throws(DBusError) -> UInt8 {
        let slice = try take(1, alignment: 1)
        return slice[slice.startIndex]
    }
    mutating func uint32() throws(DBusError) -> UInt32 { UInt32(try unsigned(4)) }

    private mutating func text(length: Int) throws(DBusError) -> String {
        let slice = try take(length + 1, alignment: 1)
        guard slice.last == 0, !slice.dropLast().contains(0),
            let text = String(validating: slice.dropLast(), as: UTF8.self)
        else {
            throw .malformed("a string that is not UTF-8 ending in NUL")
        }
        return text
    }

    /// Reads one value of the complete type `type`.
    mutating func value(_ type: Substring) throws(DBusError) -> DBusValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= DBusSignature.maximumDepth else { throw .malformed("nested too deep") }
        switch type.first {
        case "y": return .byte(try byte())
        case "b":
            let value = try uint32()
            guard value <= 1 else { throw .malformed("a boolean of \(value)") }
            return .bool(value == 1)
        case "n": return .int(Int64(Int16(truncatingIfNeeded: try unsigned(2))))
        case "q": return .uint(try unsigned(2))
        case "i": return .int(Int64(Int32(truncatingIfNeeded: try unsigned(4))))
        case "u": return .uint(try unsigned(4))
        case "x": return .int(Int64(bitPattern: try unsigned(8)))
        case "t": return .uint(try unsigned(8))
        case "d": return .double(Double(bitPattern: try unsigned(8)))
        case "h": return .unixFD(try uint32())
        case "s", "o": return .string(try text(length: Int(try uint32())))
        case "g": return .string(try text(length: Int(try byte())))
        case "v":
            let signature = try text(length: Int(try byte()))
            let types = try DBusSignature.types(signature)
            guard types.count == 1 else { throw .malformed("a variant of \(types.count) types") }
            return .variant(signature: signature, try value(types[0]))
        case "a": return try array(of: type.dropFirst())
        case "(":
            align(8)
            var values: [DBusValue] = []
            for field in try DBusSignature.types(String(type.dropFirst().dropLast())) {
                values.append(try value(field))
            }
            return .structure(values)
        default:
            throw .malformed("the type '\(type.prefix(16))'")
        }
    }

    private mutating func array(of element: Substring) throws(DBusError) -> DBusValue {
        let length = Int(try uint32())
        guard length <= DBusMessage.maximumSize else { throw .malformed("an array of \(length) bytes") }
        align(DBusSignature.alignment(of: element.first))
        let end = offset + length
        guard end <= bytes.count else { throw .malformed("truncated array") }
        // Every element reads at least one byte (a signature has no empty structure), so this ends.
        var items: [DBusValue] = []
        var pairs: [DBusValue: DBusValue] = [:]
        while offset < end {
            if element.first == "{" {
                align(8)
                let types = try DBusSignature.types(String(element.dropFirst().dropLast()))
                guard types.count == 2 else { throw .malformed("a dictionary entry of \(types.count) types") }
                let key = try value(types[0])
                pairs[key] = try value(types[1])
            } else {
                items.append(try value(element))
            }
        }
        guard offset == end else { throw .malformed("an array element past the array's end") }
        return element.first == "{" ? .dictionary(pairs) : .array(items)
    }
}
