/// A D-Bus message (D-Bus specification, "Message Protocol"): header fields and a body of values
/// by its signature, written little-endian, read in either byte order.
///
/// Messages come from another process, so decoding is bounded (``maximumSize``, nesting depth)
/// and every malformed input is a ``DBusError``, never a crash.
struct DBusMessage: Sendable, Hashable {
    /// The message type (header byte 1).
    enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    var kind: Kind
    var serial: UInt32 = 0
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var replySerial: UInt32?
    var destination: String?
    var sender: String?
    var signature = ""
    var body: [DBusValue] = []

    /// The largest message accepted: the specification allows 128 MiB; these are tiny.
    static let maximumSize = 1 << 20

    /// The message bus itself: `Hello`, `AddMatch`, `NameOwnerChanged`.
    static let bus = (name: "org.freedesktop.DBus", path: "/org/freedesktop/DBus")

    /// A method call whose arguments are all strings.
    static func call(
        _ destination: String,
        _ path: String,
        _ interface: String,
        _ member: String,
        _ strings: [String] = []
    ) -> DBusMessage {
        var message = DBusMessage(kind: .methodCall)
        message.destination = destination
        message.path = path
        message.interface = interface
        message.member = member
        message.signature = String(repeating: "s", count: strings.count)
        message.body = strings.map(DBusValue.string)
        return message
    }

    /// The message in little-endian wire format; a body that does not match the signature is an
    /// error.
    func encoded() throws(DBusError) -> [UInt8] {
        var body = DBusWriter()
        let types = try DBusSignature.types(signature)
        guard types.count == self.body.count else { throw .malformed("\(self.body.count) values for '\(signature)'") }
        for (value, type) in zip(self.body, types) { try body.value(value, type) }
        var fields: [DBusValue] = []
        func field(_ code: UInt8, _ type: String, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code), .variant(signature: type, value)])) }
        }
        field(1, "o", path.map(DBusValue.string))
        field(2, "s", interface.map(DBusValue.string))
        field(3, "s", member.map(DBusValue.string))
        field(4, "s", errorName.map(DBusValue.string))
        field(5, "u", replySerial.map { .uint(UInt64($0)) })
        field(6, "s", destination.map(DBusValue.string))
        field(7, "s", sender.map(DBusValue.string))
        field(8, "g", signature.isEmpty ? nil : .string(signature))
        var header = DBusWriter()
        header.bytes([UInt8(ascii: "l"), kind.rawValue, 0, 1])
        header.uint32(UInt32(body.data.count))
        header.uint32(serial)
        try header.value(.array(fields), "a(yv)")
        header.align(8)
        return header.data + body.data
    }

    /// The size of the message whose first 16 bytes are `prefix`, or nil when fewer are there.
    static func size(of prefix: ArraySlice<UInt8>) throws(DBusError) -> Int? {
        guard prefix.count >= 16 else { return nil }
        let start = prefix.startIndex
        let little: Bool
        switch prefix[start] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: throw .malformed("unknown byte order \(prefix[start])")
        }
        guard prefix[start + 3] == 1 else { throw .malformed("protocol version \(prefix[start + 3])") }
        func word(_ offset: Int) -> Int {
            let bytes = (0..<4).map { Int(prefix[start + offset + $0]) }
            return little
                ? bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
                : bytes[3] | bytes[2] << 8 | bytes[1] << 16 | bytes[0] << 24
        }
        let bodyLength = word(4)
        let fieldsLength = word(12)
        guard bodyLength <= maximumSize, fieldsLength <= maximumSize else { throw .malformed("message too large") }
        let total = (16 + fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximumSize else { throw .malformed("a message of \(total) bytes") }
        return total
    }

    /// A message with no header fields and no body yet.
    init(kind: Kind) {
        self.kind = kind
    }

    /// Decodes one whole message (``size(of:)`` bytes).
    init(decoding bytes: [UInt8]) throws(DBusError) {
        guard bytes.count >= 16, let size = try Self.size(of: bytes[...]), size == bytes.count else {
            throw .malformed("a message whose length is not its header's")
        }
        var reader = DBusReader(bytes, little: bytes[0] == UInt8(ascii: "l"))
        reader.offset = 1
        guard let kind = Kind(rawValue: try reader.byte()) else { throw .malformed("unknown message type") }
        self.init(kind: kind)
        reader.offset = 4
        let bodyLength = Int(try reader.uint32())
        serial = try reader.uint32()
        guard case .array(let fields) = try reader.value("a(yv)") else { throw .malformed("header fields") }
        for field in fields { try apply(field) }
        reader.align(8)
        guard reader.offset + bodyLength == bytes.count else { throw .malformed("body length") }
        let start = reader.offset
        // The body is aligned from its own start, which is 8-aligned: reading on from here is the same.
        for type in try DBusSignature.types(signature) { body.append(try reader.value(type)) }
        guard reader.offset == start + bodyLength else { throw .malformed("trailing bytes in the body") }
    }

    private mutating func apply(_ field: DBusValue) throws(DBusError) {
        guard case .structure(let parts) = field, parts.count == 2, case .byte(let code) = parts[0],
            case .variant(_, let value) = parts[1]
        else { throw .malformed("a header field") }
        switch (code, value) {
        case (1, .string(let text)): path = text
        case (2, .string(let text)): interface = text
        case (3, .string(let text)): member = text
        case (4, .string(let text)): errorName = text
        case (5, .uint(let number)): replySerial = UInt32(truncatingIfNeeded: number)
        case (6, .string(let text)): destination = text
        case (7, .string(let text)): sender = text
        case (8, .string(let text)): signature = text
        case (1...8, _): throw .malformed("header field \(code) of the wrong type")
        default: break  // unknown fields are ignored, as the specification says
        }
    }
}
