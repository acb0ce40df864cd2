import BackgroundCore
import BackgroundProtocol
import Foundation

/// The journal's lines: one JSON object and a newline per ``JournalEntry``, keys sorted.
enum JournalLine {
    /// Appends the entry's line to `bytes`.
    ///
    /// The lines a begin+end pair makes (its events, a granted reply, a budget reading) are
    /// written by hand, without `JSONEncoder`, which costs about 80,000 instructions a line; every
    /// other entry goes through `JSONEncoder` with sorted keys. Both write the same line
    /// (`JournalLineTests`), except that the hand-written ones do not escape `/` (`JSONEncoder`
    /// writes `\/`; JSON reads both the same). Keys are sorted because `JSONEncoder` otherwise
    /// writes them in its dictionary's order, which changes from one line to the next.
    ///
    /// - Throws: `EncodingError` when `JSONEncoder` refuses the entry (a time that is not finite).
    static func append(_ entry: JournalEntry, to bytes: inout [UInt8]) throws {
        if let line = JournalLineWriter.line(entry) {
            bytes.append(contentsOf: line)
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            bytes.append(contentsOf: try encoder.encode(entry))
        }
        bytes.append(0x0A)
    }

    /// What the engine queues under its lock: one entry's parts, without the ``JournalEntry``
    /// around them (five optionals, copied at every step), which is made only when rendered.
    enum Record {
        case event(Event, Reply?, time: Double)
        case effect(Effect, time: Double)
        case budget(JournalEntry.BudgetReading, time: Double)
        case transfer(JournalEntry.TransferReading, time: Double)

        var entry: JournalEntry {
            switch self {
            case .event(let event, let reply, let time): JournalEntry(time: time, event: event, reply: reply)
            case .effect(let effect, let time): JournalEntry(time: time, effect: effect)
            case .budget(let budget, let time): JournalEntry(time: time, budget: budget)
            case .transfer(let transfer, let time): JournalEntry(time: time, transfer: transfer)
            }
        }
    }

    /// Appends the record's line to `bytes`: the same line as its entry's.
    static func append(_ record: Record, to bytes: inout [UInt8]) throws {
        switch record {
        case .event(let event, let reply, let time):
            if let line = JournalLineWriter.line(time: time, event: event, reply: reply, budget: nil) {
                bytes.append(contentsOf: line)
                bytes.append(0x0A)
                return
            }
        case .budget(let budget, let time):
            if let line = JournalLineWriter.line(time: time, event: nil, reply: nil, budget: budget) {
                bytes.append(contentsOf: line)
                bytes.append(0x0A)
                return
            }
        case .effect, .transfer:
            break
        }
        try append(record.entry, to: &bytes)
    }
}

/// The hand-written journal lines (``JournalLine/append(_:to:)``), keys in sorted order as
/// `JSONEncoder`'s `.sortedKeys` writes them.
enum JournalLineWriter {
    /// The entry's JSON, or nil when it is not one of the shapes written by hand.
    static func line(_ entry: JournalEntry) -> [UInt8]? {
        guard entry.effect == nil, entry.transfer == nil else { return nil }
        return line(time: entry.time, event: entry.event, reply: entry.reply, budget: entry.budget)
    }

    /// The JSON of an entry with these parts (and no effect or transfer), or nil.
    static func line(
        time: Double,
        event: Event?,
        reply: Reply?,
        budget: JournalEntry.BudgetReading?
    ) -> [UInt8]? {
        guard time.isFinite else { return nil }
        var out = JSONOut(bytes: [])
        out.bytes.reserveCapacity(192)
        out.raw("{")
        if let budget {
            guard budget.remainingSeconds.isFinite, budget.limitSeconds.isFinite else { return nil }
            out.raw("\"budget\":{\"app\":")
            out.string(budget.app.bundleIdentifier)
            out.raw(",\"depleting\":")
            out.raw(budget.depleting ? "true" : "false")
            out.raw(",\"limitSeconds\":")
            out.number(budget.limitSeconds)
            out.raw(",\"remainingSeconds\":")
            out.number(budget.remainingSeconds)
            out.raw("},")
        }
        if let event {
            out.raw("\"event\":")
            guard out.event(event) else { return nil }
            out.raw(",")
        }
        if let reply {
            guard case .granted(let id) = reply else { return nil }
            out.raw("\"reply\":{\"granted\":{\"_0\":")
            out.integer(id.rawValue)
            out.raw("}},")
        }
        out.raw("\"time\":")
        out.number(time)
        out.raw("}")
        return out.bytes
    }

    struct JSONOut {
        var bytes: [UInt8]

        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// A finite double as `JSONEncoder` writes it: a whole number below 10^16 without a
        /// fraction (`30`, `-0`), any other in the shortest form that reads back as the same value.
        mutating func number(_ value: Double) {
            if value.rounded(.towardZero) == value, value.magnitude < 1e16 {
                if value == 0, value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
                bytes.append(contentsOf: String(Int64(value)).utf8)
            } else {
                bytes.append(contentsOf: value.description.utf8)
            }
        }

        mutating func integer(_ value: Int) {
            bytes.append(contentsOf: String(value).utf8)
        }

        /// A JSON string: `"` and `\` escaped, control characters as `\uXXXX` (or their short
        /// escapes), everything else as its UTF-8.
        mutating func string(_ value: String) {
            bytes.append(UInt8(ascii: "\""))
            var value = value
            let plain = value.withUTF8 { utf8 in
                // Most strings need no escape: their bytes go in as one copy.
                guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
                else { return false }
                bytes.append(contentsOf: utf8)
                return true
            }
            if !plain { escaped(value) }
            bytes.append(UInt8(ascii: "\""))
        }

        private mutating func escaped(_ value: String) {
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                case 0..<0x20:
                    raw("\\u00")
                    bytes.append(Self.hex[Int(byte >> 4)])
                    bytes.append(Self.hex[Int(byte & 0x0F)])
                default: bytes.append(byte)
                }
            }
        }

        private static let hex = Array("0123456789abcdef".utf8)

        mutating func callSite(_ origin: CallSite) {
            raw("{\"fileID\":")
            string(origin.fileID)
            raw(",\"function\":")
            string(origin.function)
            raw(",\"line\":")
            bytes.append(contentsOf: String(origin.line).utf8)
            raw("}")
        }

        /// Writes an event of a begin+end pair, or returns false for any other.
        mutating func event(_ event: Event) -> Bool {
            switch event {
            case .beginAssertion(let app, let name, let origin, let hasExpirationHandler):
                raw("{\"beginAssertion\":{\"_0\":")
                string(app.bundleIdentifier)
                assertionDetails(name, origin, hasExpirationHandler)
            case .assertionBegun(let app, let id, let name, let origin, let hasExpirationHandler):
                raw("{\"assertionBegun\":{\"_0\":")
                string(app.bundleIdentifier)
                raw(",\"_1\":")
                integer(id.rawValue)
                assertionDetails(name, origin, hasExpirationHandler)
            case .endAssertion(let app, let id):
                raw("{\"endAssertion\":")
                appAndAssertion(app, id)
            case .expirationHandlerReturned(let app, let id):
                raw("{\"expirationHandlerReturned\":")
                appAndAssertion(app, id)
            default:
                return false
            }
            raw("}")
            return true
        }

        private mutating func assertionDetails(_ name: String, _ origin: CallSite, _ hasExpirationHandler: Bool) {
            raw(hasExpirationHandler ? ",\"hasExpirationHandler\":true" : ",\"hasExpirationHandler\":false")
            raw(",\"name\":")
            string(name)
            raw(",\"origin\":")
            callSite(origin)
            raw("}")
        }

        private mutating func appAndAssertion(_ app: AppID, _ id: AssertionID) {
            raw("{\"_0\":")
            string(app.bundleIdentifier)
            raw(",\"_1\":")
            integer(id.rawValue)
            raw("}")
        }
    }
}
