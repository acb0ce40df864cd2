import BackgroundCore

/// The messages of a begin+end pair, written and read by hand: the same bytes as the generic
/// Codable path (``WireEncoder``, ``WireDecoder``), without its cost.
///
/// The generic path builds a ``WireValue`` tree and walks `Codable` through existential
/// containers: about 86,000 instructions to decode one `assertionBegun` (generic metadata
/// lookups, an allocation per node). An app under `backgroundd` sends one such frame for each
/// `beginBackgroundTask` and one for each `endBackgroundTask`, so these few shapes are the
/// daemon's hot path. This file knows exactly those shapes:
///
/// - requests: `.app(.event(e))` and `.app(.oneWay(e))` where `e` is `beginAssertion`,
///   `assertionBegun`, `endAssertion` or `expirationHandlerReturned`;
/// - answers: `.system(.answer(.granted(id), []))`, the round-trip begin's answer.
///
/// **The same bytes, the same values.** ``encode(_:)-(DaemonRequest)`` writes what the generic
/// encoder writes for the same message, byte for byte. ``decode(_:limits:)-(_,_)`` reads only the
/// canonical form of a hot message (its keys in the encoder's order, nothing more), after the
/// same size check; anything else (another message, another order, an extra key, a wrong tag) is
/// `nil`, and the caller decodes it the generic way, which gives the same value or the same
/// error as before. `HotMessagesTests` compares both paths on every hot message, and the
/// app-events fuzz target compares them on every input it makes (`Fuzz/AppEvents`).
enum HotMessages {
    // MARK: Writing

    /// The message's bytes (magic and version included), or nil when it is not a hot message.
    static func encode(_ request: DaemonRequest) -> [UInt8]? {
        guard case .app(let message) = request else { return nil }
        var writer = Writer()
        writer.keyed(1)
        writer.key("app")
        writer.unlabelled()
        writer.keyed(1)
        switch message {
        case .event(let event):
            writer.key("event")
            writer.unlabelled()
            guard writer.event(event) else { return nil }
        case .oneWay(let event):
            writer.key("oneWay")
            writer.unlabelled()
            guard writer.event(event) else { return nil }
        case .query, .transfer:
            return nil
        }
        return writer.bytes
    }

    /// The answer's bytes, or nil when it is not a hot answer.
    static func encode(_ response: DaemonResponse) -> [UInt8]? {
        guard case .system(.answer(.granted(let id)?, let effects)) = response, effects.isEmpty else { return nil }
        var writer = Writer()
        writer.keyed(1)
        writer.key("system")
        writer.unlabelled()
        writer.keyed(1)
        writer.key("answer")
        writer.keyed(2)
        writer.key("_0")
        writer.keyed(1)
        writer.key("granted")
        writer.keyed(1)
        writer.key("_0")
        writer.int(id.rawValue)
        writer.key("_1")
        writer.array(0)
        return writer.bytes
    }

    /// Appends the protocol's bytes of each part, the way ``WireValue/write(into:)`` does.
    struct Writer {
        var bytes: [UInt8]

        init() {
            bytes = []
            bytes.reserveCapacity(160)
            bytes.append(contentsOf: ProtocolCodec.magic)
            bytes.append(ProtocolCodec.version)
        }

        mutating func keyed(_ count: UInt32) {
            bytes.append(7)
            length(count)
        }

        /// The one unlabelled associated value of a case (`case app(AppMessage)`): `Codable`
        /// writes it as the only pair of a keyed value, under `_0`.
        mutating func unlabelled() {
            keyed(1)
            key("_0")
        }

        mutating func array(_ count: UInt32) {
            bytes.append(6)
            length(count)
        }

        mutating func key(_ key: StaticString) {
            key.withUTF8Buffer { utf8 in
                length(UInt32(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func string(_ value: String) {
            bytes.append(5)
            var value = value
            value.withUTF8 { utf8 in
                length(UInt32(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func int(_ value: Int) {
            bytes.append(3)
            withUnsafeBytes(of: UInt64(bitPattern: Int64(value)).littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func bool(_ value: Bool) { bytes.append(value ? 2 : 1) }

        private mutating func length(_ count: UInt32) {
            withUnsafeBytes(of: count.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func callSite(_ origin: CallSite) {
            keyed(3)
            key("fileID")
            string(origin.fileID)
            key("line")
            // The generic encoder writes a UInt as its 64 bits (WireEncoder's `encodeValue`).
            bytes.append(3)
            withUnsafeBytes(of: UInt64(origin.line).littleEndian) { bytes.append(contentsOf: $0) }
            key("function")
            string(origin.function)
        }

        /// Writes a hot event, or returns false for any other.
        mutating func event(_ event: Event) -> Bool {
            keyed(1)
            switch event {
            case .beginAssertion(let app, let name, let origin, let hasExpirationHandler):
                key("beginAssertion")
                keyed(4)
                key("_0")
                string(app.bundleIdentifier)
                key("name")
                string(name)
                key("origin")
                callSite(origin)
                key("hasExpirationHandler")
                bool(hasExpirationHandler)
            case .assertionBegun(let app, let id, let name, let origin, let hasExpirationHandler):
                key("assertionBegun")
                keyed(5)
                key("_0")
                string(app.bundleIdentifier)
                key("_1")
                int(id.rawValue)
                key("name")
                string(name)
                key("origin")
                callSite(origin)
                key("hasExpirationHandler")
                bool(hasExpirationHandler)
            case .endAssertion(let app, let id):
                key("endAssertion")
                appAndAssertion(app, id)
            case .expirationHandlerReturned(let app, let id):
                key("expirationHandlerReturned")
                appAndAssertion(app, id)
            default:
                return false
            }
            return true
        }

        private mutating func appAndAssertion(_ app: AppID, _ id: AssertionID) {
            keyed(2)
            key("_0")
            string(app.bundleIdentifier)
            key("_1")
            int(id.rawValue)
        }
    }

    // MARK: Reading

    /// Whether the generic path's limits let every hot message through: its size (after the magic
    /// and version, as ``WireValue/read(_:limits:)`` counts it), and the hot
    /// shapes' nesting (9 levels at most) and counts (5 at most).
    private static func within(_ limits: WireLimits, _ bytes: [UInt8]) -> Bool {
        bytes.count - 4 <= limits.maximumMessageBytes && limits.maximumDepth >= 9 && limits.maximumCount >= 5
    }

    /// The hot request in `bytes`, or nil for anything else (the caller then decodes it the
    /// generic way). `bytes` must already carry this version's magic.
    static func decode(_ bytes: [UInt8], limits: WireLimits) -> DaemonRequest? {
        guard Self.within(limits, bytes) else { return nil }  // the generic path says why
        var reader = Reader(bytes: bytes, offset: 4)
        guard reader.keyed(1), reader.key("app"), reader.unlabelled(), reader.keyed(1) else { return nil }
        let oneWay: Bool
        if reader.key("oneWay") {
            oneWay = true
        } else if reader.key("event") {
            oneWay = false
        } else {
            return nil
        }
        guard reader.unlabelled(), let event = reader.event(), reader.offset == bytes.count else { return nil }
        return .app(oneWay ? .oneWay(event) : .event(event))
    }

    /// The hot answer in `bytes`, or nil for anything else.
    static func decodeResponse(_ bytes: [UInt8], limits: WireLimits) -> DaemonResponse? {
        guard Self.within(limits, bytes) else { return nil }
        var reader = Reader(bytes: bytes, offset: 4)
        guard reader.keyed(1), reader.key("system"), reader.unlabelled(), reader.keyed(1), reader.key("answer"),
            reader.keyed(2),
            reader.key("_0"), reader.keyed(1), reader.key("granted"), reader.keyed(1), reader.key("_0"),
            let id = reader.int(), reader.key("_1"), reader.emptyArray(), reader.offset == bytes.count
        else { return nil }
        return .system(.answer(.granted(AssertionID(rawValue: id)), []))
    }

    /// A cursor that only says whether the next bytes are the expected part: it never throws,
    /// and every read is checked against what is left.
    struct Reader {
        let bytes: [UInt8]
        var offset: Int

        private mutating func tag(_ expected: UInt8) -> Bool {
            guard offset < bytes.count, bytes[offset] == expected else { return false }
            offset += 1
            return true
        }

        private mutating func length() -> Int? {
            guard bytes.count - offset >= 4 else { return nil }
            var value = 0
            for index in 0..<4 { value |= Int(bytes[offset + index]) << (8 * index) }
            offset += 4
            return value
        }

        private mutating func raw64() -> UInt64? {
            guard bytes.count - offset >= 8 else { return nil }
            var value: UInt64 = 0
            for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
            offset += 8
            return value
        }

        /// A keyed value of exactly `count` pairs.
        mutating func keyed(_ count: Int) -> Bool {
            let start = offset
            guard tag(7), length() == count else {
                offset = start
                return false
            }
            return true
        }

        /// A keyed value whose one pair is `_0` (see ``Writer/unlabelled()``).
        mutating func unlabelled() -> Bool { keyed(1) && key("_0") }

        mutating func emptyArray() -> Bool { tag(6) && length() == 0 }

        /// The key `expected`; on a mismatch the cursor stays where it was.
        mutating func key(_ expected: StaticString) -> Bool {
            let start = offset
            let matches = expected.withUTF8Buffer { utf8 -> Bool in
                guard length() == utf8.count, bytes.count - offset >= utf8.count else { return false }
                let start = offset
                let equal = bytes.withUnsafeBufferPointer { buffer in
                    for index in 0..<utf8.count where buffer[start + index] != utf8[index] { return false }
                    return true
                }
                guard equal else { return false }
                offset += utf8.count
                return true
            }
            if !matches { offset = start }
            return matches
        }

        mutating func string() -> String? {
            guard tag(5), let length = length(), bytes.count - offset >= length else { return nil }
            let string = bytes.withUnsafeBufferPointer { buffer -> String? in
                let utf8 = UnsafeBufferPointer(rebasing: buffer[offset..<(offset + length)])
                // ASCII is valid UTF-8 as it stands: decoded without the generic validation.
                if !utf8.contains(where: { $0 >= 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
                return String(validating: utf8, as: UTF8.self)
            }
            offset += length
            return string
        }

        mutating func int() -> Int? {
            guard tag(3), let raw = raw64() else { return nil }
            return Int(Int64(bitPattern: raw))
        }

        mutating func bool() -> Bool? {
            if tag(2) { return true }
            if tag(1) { return false }
            return nil
        }

        mutating func callSite() -> CallSite? {
            guard keyed(3), key("fileID"), let fileID = string(), key("line"), tag(3), let line = raw64(),
                key("function"), let function = string()
            else { return nil }
            return CallSite(fileIDText: fileID, line: UInt(truncatingIfNeeded: line), functionText: function)
        }

        mutating func appAndAssertion() -> (AppID, AssertionID)? {
            guard keyed(2), key("_0"), let app = string(), key("_1"), let id = int() else { return nil }
            return (AppID(app), AssertionID(rawValue: id))
        }

        mutating func event() -> Event? {
            guard keyed(1) else { return nil }
            if key("assertionBegun") {
                guard keyed(5), key("_0"), let app = string(), key("_1"), let id = int(), key("name"),
                    let name = string(), key("origin"), let origin = callSite(), key("hasExpirationHandler"),
                    let hasExpirationHandler = bool()
                else { return nil }
                return .assertionBegun(
                    AppID(app),
                    AssertionID(rawValue: id),
                    name: name,
                    origin: origin,
                    hasExpirationHandler: hasExpirationHandler
                )
            }
            if key("endAssertion") {
                guard let (app, id) = appAndAssertion() else { return nil }
                return .endAssertion(app, id)
            }
            if key("beginAssertion") {
                guard keyed(4), key("_0"), let app = string(), key("name"), let name = string(), key("origin"),
                    let origin = callSite(), key("hasExpirationHandler"), let hasExpirationHandler = bool()
                else { return nil }
                return .beginAssertion(
                    AppID(app),
                    name: name,
                    origin: origin,
                    hasExpirationHandler: hasExpirationHandler
                )
            }
            if key("expirationHandlerReturned") {
                guard let (app, id) = appAndAssertion() else { return nil }
                return .expirationHandlerReturned(app, id)
            }
            return nil
        }
    }
}
