/// One route of the kernel's routing tables, as `/proc/net/route` (IPv4, the main table) and
/// `/proc/net/ipv6_route` (IPv6, every table) list it.
public struct NetworkRoute: Sendable, Hashable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4 (`/proc/net/route`).
        case ipv4
        /// IPv6 (`/proc/net/ipv6_route`).
        case ipv6
    }

    /// The interface the route sends through (`eth0`).
    public var interface: String
    /// IPv4 or IPv6.
    public var family: Family
    /// The destination's bytes in network order (4 for IPv4, 16 for IPv6).
    public var destination: [UInt8]
    /// The destination's prefix length (0 for a default route).
    public var prefixLength: Int
    /// The kernel's `RTF_*` flags (`linux/route.h`, `linux/ipv6_route.h`).
    public var flags: UInt32

    /// A route with the given fields.
    public init(interface: String, family: Family, destination: [UInt8], prefixLength: Int, flags: UInt32) {
        self.interface = interface
        self.family = family
        self.destination = destination
        self.prefixLength = prefixLength
        self.flags = flags
    }

    /// `RTF_UP`: the route is usable.
    public static let up: UInt32 = 0x1
    /// `RTF_REJECT`: an unreachable or prohibit route.
    public static let reject: UInt32 = 0x200
    /// `RTF_ANYCAST` (IPv6): an anycast address of this host, in the local table.
    public static let anycast: UInt32 = 0x10_0000
    /// `RTF_LOCAL` (IPv6): an address of this host, in the local table.
    public static let local: UInt32 = 0x8000_0000

    /// A default route (`0.0.0.0/0`, `::/0`).
    public var isDefault: Bool { prefixLength == 0 }

    /// Whether the route can carry traffic off this host: up, not a reject route, not one of
    /// the host's own addresses (the local table's `RTF_LOCAL` and `RTF_ANYCAST` entries), and
    /// not to a link-local or multicast range (`169.254.0.0/16`, `224.0.0.0/4`, `fe80::/10`,
    /// `ff00::/8`), which the kernel or a link-local autoconfiguration adds to every interface
    /// that is up, with or without a network behind it.
    public var isUsable: Bool {
        guard flags & Self.up != 0, flags & (Self.reject | Self.local | Self.anycast) == 0 else { return false }
        return !isLinkLocalOrMulticast
    }

    private var isLinkLocalOrMulticast: Bool {
        guard prefixLength > 0, let first = destination.first else { return false }
        let second = destination.count > 1 ? destination[1] : 0
        switch family {
        case .ipv4: return (first == 169 && second == 254) || first & 0xF0 == 0xE0
        case .ipv6: return (first == 0xFE && second & 0xC0 == 0x80) || first == 0xFF
        }
    }

    /// `default`, `192.0.2.0/24`, `fd00::/64`.
    public var description: String {
        if isDefault { return family == .ipv4 ? "default route" : "IPv6 default route" }
        return "route " + Self.address(destination, family) + "/\(prefixLength)"
    }

    /// Dotted quad for IPv4; eight groups of hexadecimal digits with the longest run of two or
    /// more zero groups written `::` for IPv6 (RFC 5952).
    static func address(_ bytes: [UInt8], _ family: Family) -> String {
        if family == .ipv4 { return bytes.map { String($0) }.joined(separator: ".") }
        let groups = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var best = (start: -1, length: 0)
        var index = 0
        while index < groups.count {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < groups.count, groups[end] == 0 { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return text.joined(separator: ":") }
        let head = text[..<best.start].joined(separator: ":")
        let tail = text[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}
