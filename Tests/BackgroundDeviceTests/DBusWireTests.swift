import Testing

@testable import BackgroundDevice

/// The D-Bus wire format (D-Bus specification, "Message Protocol"): what the writer writes the
/// reader reads back, in either byte order; hostile bytes are typed errors, never a crash.
@Suite("D-Bus messages on the wire")
struct DBusWireTests {
    /// A signal with every kind of value the desktop sources meet.
    static var changes: DBusMessage {
        var message = DBusMessage(kind: .signal)
        message.serial = 7
        message.path = "/org/freedesktop/login1/seat/seat0"
        message.interface = "org.freedesktop.DBus.Properties"
        message.member = "PropertiesChanged"
        message.sender = ":1.42"
        message.signature = "sa{sv}asyntxdqub(so)"
        message.body = [
            .string("org.freedesktop.login1.Seat"),
            .dictionary([
                .string("ActiveSession"): .variant("(so)", .structure([.string("c2"), .string("/org/s/c2")])),
                .string("IdleHint"): .variant("b", .bool(true)),
                .string("Metered"): .variant("u", .uint(4)),
            ]),
            .array([.string("CanGraphical")]),
            .byte(200), .int(-3), .uint(1 << 40), .int(-(1 << 40)), .double(2.5), .uint(65535), .uint(7),
            .bool(false), .structure([.string("x"), .string("/x")]),
        ]
        return message
    }

    @Test(
        "a signal with strings, a dictionary of variants, an array, integers of every width and a structure round-trips"
    )
    func roundTrip() throws {
        let bytes = try Self.changes.encoded()
        #expect(try DBusMessage.size(of: bytes[...]) == bytes.count)
        #expect(try DBusMessage(decoding: bytes) == Self.changes)
    }

    @Test("a method call's bytes are the specification's: header, fields padded to 8, string body")
    func callBytes() throws {
        var call = DBusMessage.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
        call.serial = 1
        let bytes = try call.encoded()
        #expect(Array(bytes.prefix(12)) == [0x6C, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0])
        #expect(bytes.count % 8 == 0)
        let decoded = try DBusMessage(decoding: bytes)
        #expect(decoded.member == "Hello" && decoded.destination == "org.freedesktop.DBus" && decoded.body.isEmpty)
    }

    @Test("a big-endian message (what another bus client may send) reads the same")
    func bigEndian() throws {
        // Header of a method return, serial 2, reply to 5, signature "b", body true, written by hand big-endian.
        var bytes: [UInt8] = [UInt8(ascii: "B"), 2, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2]
        var fields: [UInt8] = [5, 1, UInt8(ascii: "u"), 0, 0, 0, 0, 5]  // reply serial 5
        fields += [8, 1, UInt8(ascii: "g"), 0, 1, UInt8(ascii: "b"), 0]  // signature "b"
        bytes += [0, 0, 0, UInt8(fields.count)] + fields
        while bytes.count % 8 != 0 { bytes.append(0) }
        bytes += [0, 0, 0, 1]
        let message = try DBusMessage(decoding: bytes)
        #expect(message.kind == .methodReturn && message.replySerial == 5 && message.body == [.bool(true)])
    }

    @Test("a value that does not match its signature is not written")
    func mismatch() {
        var message = DBusMessage(kind: .signal)
        message.signature = "u"
        message.body = [.string("no")]
        #expect(throws: DBusError.self) { try message.encoded() }
        message.signature = "uu"
        message.body = [.uint(1)]
        #expect(throws: DBusError.self) { try message.encoded() }
    }

    @Test(
        "malformed input is a typed error",
        arguments: ["byte order", "version", "message type", "truncated", "trailing", "boolean of 2", "no NUL"]
    )
    func malformed(_ damage: String) throws {
        var message = DBusMessage(kind: .methodReturn)
        message.replySerial = 3
        message.signature = "sb"
        message.body = [.string("abc"), .bool(true)]
        var bytes = try message.encoded()
        switch damage {
        case "byte order": bytes[0] = UInt8(ascii: "x")
        case "version": bytes[3] = 2
        case "message type": bytes[1] = 9
        case "truncated": bytes.removeLast(3)
        case "trailing": bytes += [0, 0, 0, 0, 0, 0, 0, 0]
        case "boolean of 2": bytes[bytes.count - 4] = 2  // the body ends with the boolean
        default: bytes[bytes.count - 5] = UInt8(ascii: "x")  // "abc" loses its NUL
        }
        #expect(throws: DBusError.self, "\(damage)") { try DBusMessage(decoding: bytes) }
    }

    @Test("signatures: nesting beyond the limit, empty structures and unknown codes are refused")
    func signatures() {
        #expect(throws: DBusError.self) { try DBusSignature.types("a()") }
        #expect(throws: DBusError.self) { try DBusSignature.types("(s") }
        #expect(throws: DBusError.self) { try DBusSignature.types("z") }
        #expect((try? DBusSignature.types("sa{sv}as(so)"))?.map(String.init) == ["s", "a{sv}", "as", "(so)"])
        var deep = DBusMessage(kind: .signal)
        deep.signature = String(repeating: "a", count: 40) + "y"
        deep.body = [(0..<40).reduce(DBusValue.byte(1)) { inner, _ in .array([inner]) }]
        #expect(throws: DBusError.self) { try deep.encoded() }
    }

    @Test("2000 mutated messages each decode or throw a typed error (seeded)")
    func mutationFuzz() throws {
        let original = try Self.changes.encoded()
        var generator = SplitMix(seed: 11)
        var decoded = 0
        var refused = 0
        for _ in 0..<2000 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            if generator.next() % 5 == 0 { bytes.removeLast(Int(generator.next() % UInt64(bytes.count))) }
            // DBusMessage(decoding:) throws only DBusError (typed throws): what is tested is that
            // no input crashes, loops or reads out of bounds.
            do {
                _ = try DBusMessage(decoding: bytes)
                decoded += 1
            } catch {
                refused += 1
            }
        }
        #expect(decoded > 0 && refused > 0, "\(decoded) decoded, \(refused) refused")
    }
}

/// A seeded generator (SplitMix64): the same seed, the same mutations.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
