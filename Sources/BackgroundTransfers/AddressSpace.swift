/// How close to this machine an address lies: the three spaces of the reach rule
/// (``RedirectReach``), from the least local to the most (WICG's Private Network Access draft
/// orders the same three as public, private and local).
///
/// ```swift
/// AddressSpace.of(IPAddress(literal: "::ffff:127.0.0.1")!, ownAddresses: [])   // .thisHost
/// AddressSpace.of(IPAddress(literal: "169.254.169.254")!, ownAddresses: [])    // .localNetwork
/// ```
enum AddressSpace: Int, Comparable, Sendable, CustomStringConvertible {
    /// Everything else.
    case publicInternet
    /// Addresses IANA's special-purpose registries mark as not globally reachable, other than
    /// this host's: private-use (RFC 1918), shared (100.64.0.0/10), link-local (169.254.0.0/16,
    /// where clouds serve instance credentials, and fe80::/10), benchmarking (198.18.0.0/15),
    /// documentation, unique-local (fc00::/7) and the deprecated site-local fec0::/10.
    case localNetwork
    /// This machine: loopback (127.0.0.0/8, ::1), "this host" (0.0.0.0/8 and ::, which Linux
    /// connects to the machine itself), and every address of the machine's own interfaces
    /// (a connection to one is delivered locally, past the rules for traffic arriving from
    /// outside).
    case thisHost

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    var description: String {
        switch self {
        case .publicInternet: "the public internet"
        case .localNetwork: "the local network"
        case .thisHost: "this host"
        }
    }

    /// The space of `address`; an IPv6 address that carries an IPv4 one
    /// (``IPAddress/embeddedIPv4``) is in the IPv4 address's space.
    static func of(_ address: IPAddress, ownAddresses: Set<IPAddress>) -> AddressSpace {
        let address = address.embeddedIPv4 ?? address
        if ownAddresses.contains(address) { return .thisHost }
        let blocks = address.isIPv4 ? ipv4Blocks : ipv6Blocks
        for block in blocks where address.isIn(block.prefix, length: block.length) { return block.space }
        return .publicInternet
    }

    private struct Block {
        var prefix: [UInt8]
        var length: Int
        var space: AddressSpace
    }

    /// IANA IPv4 Special-Purpose Address Registry: this host and loopback, then every block
    /// that is not globally reachable.
    private static let ipv4Blocks: [Block] = [
        Block(prefix: [0, 0, 0, 0], length: 8, space: .thisHost),  // RFC 791 "this host on this network"
        Block(prefix: [127, 0, 0, 0], length: 8, space: .thisHost),  // RFC 1122 loopback
        Block(prefix: [10, 0, 0, 0], length: 8, space: .localNetwork),  // RFC 1918
        Block(prefix: [100, 64, 0, 0], length: 10, space: .localNetwork),  // RFC 6598 shared
        Block(prefix: [169, 254, 0, 0], length: 16, space: .localNetwork),  // RFC 3927 link-local
        Block(prefix: [172, 16, 0, 0], length: 12, space: .localNetwork),  // RFC 1918
        Block(prefix: [192, 0, 0, 0], length: 24, space: .localNetwork),  // RFC 6890 protocol assignments
        Block(prefix: [192, 0, 2, 0], length: 24, space: .localNetwork),  // RFC 5737 documentation
        Block(prefix: [192, 168, 0, 0], length: 16, space: .localNetwork),  // RFC 1918
        Block(prefix: [198, 18, 0, 0], length: 15, space: .localNetwork),  // RFC 2544 benchmarking
        Block(prefix: [198, 51, 100, 0], length: 24, space: .localNetwork),  // RFC 5737 documentation
        Block(prefix: [203, 0, 113, 0], length: 24, space: .localNetwork),  // RFC 5737 documentation
        Block(prefix: [240, 0, 0, 0], length: 4, space: .localNetwork),  // RFC 1112 reserved, broadcast
    ]

    /// IANA IPv6 Special-Purpose Address Registry, likewise (IPv4-carrying forms are read as
    /// their IPv4 address before this table).
    private static let ipv6Blocks: [Block] = [
        Block(prefix: [UInt8](repeating: 0, count: 16), length: 128, space: .thisHost),  // :: unspecified
        Block(prefix: [UInt8](repeating: 0, count: 15) + [1], length: 128, space: .thisHost),  // ::1
        Block(prefix: [0x01, 0] + [UInt8](repeating: 0, count: 14), length: 64, space: .localNetwork),  // 100::/64
        Block(prefix: [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 12), length: 32, space: .localNetwork),
        Block(prefix: [0xFC] + [UInt8](repeating: 0, count: 15), length: 7, space: .localNetwork),  // unique-local
        Block(prefix: [0xFE, 0x80] + [UInt8](repeating: 0, count: 14), length: 10, space: .localNetwork),  // link-local
        Block(prefix: [0xFE, 0xC0] + [UInt8](repeating: 0, count: 14), length: 10, space: .localNetwork),  // site-local
    ]
}
