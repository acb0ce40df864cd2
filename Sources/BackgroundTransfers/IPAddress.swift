#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, as the reach rule reads it (``RedirectReach``): from a URL's host, from
/// `getaddrinfo`, or from `getifaddrs`.
///
/// ```swift
/// IPAddress(literal: "[::ffff:127.0.0.1]")?.embeddedIPv4   // 127.0.0.1
/// IPAddress(literal: "2130706433")                      // nil: a name for getaddrinfo, not a literal
/// ```
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in network byte order: 4 bytes (IPv4) or 16 (IPv6).
    let bytes: [UInt8]

    /// An address of 4 or 16 bytes.
    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address a URL's host states literally, as `inet_pton` reads it (what a connection
    /// treats as an address, not a name): dotted IPv4 of four decimal parts, or IPv6 with or
    /// without brackets and with a zone (`%25eth0`, `%eth0`) ignored. Every other form (`127.1`,
    /// `2130706433`, `0x7f.1`) is a name, which `getaddrinfo` may still turn into an address: the
    /// rule looks those up.
    init?(literal host: String) {
        var text = Substring(host)
        if text.hasPrefix("[") && text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.contains(":"), let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard !text.isEmpty, text.utf8.count < 64 else { return nil }
        let string = String(text)
        if let address = Self.parse(string, family: AF_INET, count: 4) {
            self = address
        } else if let address = Self.parse(string, family: AF_INET6, count: 16) {
            self = address
        } else {
            return nil
        }
    }

    private static func parse(_ text: String, family: Int32, count: Int) -> IPAddress? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let parsed = buffer.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? IPAddress(bytes: Array(buffer.prefix(count))) : nil
    }

    /// Whether this is an IPv4 address.
    var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 address carries and is connected to as: IPv4-mapped
    /// (`::ffff:0:0/96`, RFC 4291 §2.5.5.2, which a dual-stack socket connects over IPv4),
    /// IPv4-compatible (`::/96` other than `::` and `::1`, deprecated by RFC 4291 §2.5.5.1) and the
    /// NAT64 well-known prefix (`64:ff9b::/96`, RFC 6052). `nil` for every other address.
    var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = bytes.prefix(12)
        let tail = Array(bytes.suffix(4))
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
        let nat64: [UInt8] = [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]
        if head.elementsEqual(mapped) || head.elementsEqual(nat64) { return IPAddress(bytes: tail) }
        if head.allSatisfy({ $0 == 0 }) && tail != [0, 0, 0, 0] && tail != [0, 0, 0, 1] {
            return IPAddress(bytes: tail)
        }
        return nil
    }

    /// Whether the address lies in `prefix`/`length` (`prefix` of the same family).
    func isIn(_ prefix: [UInt8], length: Int) -> Bool {
        guard prefix.count == bytes.count, length <= bytes.count * 8 else { return false }
        for bit in 0..<length {
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            if bytes[bit / 8] & mask != prefix[bit / 8] & mask { return false }
        }
        return true
    }

    /// The address as `inet_ntop` writes it (`127.0.0.1`, `::ffff:127.0.0.1`).
    var description: String {
        var text = [CChar](repeating: 0, count: 64)
        let family = isIPv4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard written != nil else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The address as a URL's host writes it: IPv6 in brackets.
    var urlHost: String { isIPv4 ? description : "[\(description)]" }
}
