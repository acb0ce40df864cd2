/// Writes the little-endian wire format, aligned from the start of what it writes (a message's
/// header, or its body, which starts on an 8-byte boundary).
struct DBusWriter {
    /// The bytes written.
    var data: [UInt8] = []
    private var depth = 0

    mutating func align(_ boundary: Int) {
        while data.count % boundary != 0 { data.append(0) }
    }

    mutating func bytes(_ bytes: [UInt8]) { data += bytes }

    private mutating func unsigned(_ value: UInt64, size: Int) {
        align(size)
        for index in 0..<size { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    mutating func uint32(_ value: UInt32) { unsigned(UInt64(value), size: 4) }

    private mutating func string(_ text: String) {
        uint32(UInt32(text.utf8.count))
        data += Array(text.utf8) + [0]
    }

    private mutating func signature(_ text: String) {
        data += [UInt8(text.utf8.count)] + Array(text.utf8) + [0]
    }

    /// Writes `value` as the complete type `type`; a value that does not match is an error.
    mutating func value(_ value: DBusValue, _ type: Substring) throws(DBusError) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= DBusSignature.maximumDepth else { throw .malformed("nested too deep to write") }
        switch (type.first, value) {
        case ("y", .byte(let byte)): data.append(byte)
        case ("b", .bool(let flag)): uint32(flag ? 1 : 0)
        case ("n", .int(let number)): unsigned(UInt64(bitPattern: number), size: 2)
        case ("q", .uint(let number)): unsigned(number, size: 2)
        case ("i", .int(let number)): unsigned(UInt64(bitPattern: number), size: 4)
        case ("u", .uint(let number)): unsigned(number, size: 4)
        case ("h", .unixFD(let index)): uint32(index)
        case ("x", .int(let number)): unsigned(UInt64(bitPattern: number), size: 8)
        case ("t", .uint(let number)): unsigned(number, size: 8)
        case ("d", .double(let number)): unsigned(number.bitPattern, size: 8)
        case ("s", .string(let text)), ("o", .string(let text)): string(text)
        case ("g", .string(let text)): signature(text)
        case ("v", .variant(let inner, let content)):
            signature(inner)
            let types = try DBusSignature.types(inner)
            guard types.count == 1 else { throw .malformed("a variant of \(types.count) types") }
            try self.value(content, types[0])
        case ("a", .array(let items)):
            try array(of: type.dropFirst(), items)
        case ("a", .dictionary(let pairs)):
            // Sorted by their text, so the same dictionary is always the same bytes.
            let sorted = pairs.sorted { String(describing: $0.key) < String(describing: $1.key) }
            try array(of: type.dropFirst(), sorted.map { .structure([$0.key, $0.value]) })
        case ("(", .structure(let fields)), ("{", .structure(let fields)):
            align(8)
            let types = try DBusSignature.types(String(type.dropFirst().dropLast()))
            guard types.count == fields.count else { throw .malformed("\(fields.count) fields for \(type)") }
            for (field, fieldType) in zip(fields, types) { try self.value(field, fieldType) }
        default:
            throw .malformed("a value that is not of type \(type.prefix(16))")
        }
    }

    /// An array: its length, padding to the elements' alignment (not counted), the elements.
    private mutating func array(of element: Substring, _ items: [DBusValue]) throws(DBusError) {
        uint32(0)
        let lengthAt = data.count - 4
        align(DBusSignature.alignment(of: element.first))
        let start = data.count
        for item in items { try value(item, element) }
        let length = UInt32(data.count - start)
        for index in 0..<4 { data[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
    }
}
