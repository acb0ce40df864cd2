import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The system calls of the reach rule (``RedirectReach``): a host name's addresses, as a
/// connection looks them up, and this machine's own addresses.
enum NetworkLookup {
    /// The addresses `getaddrinfo` gives `host` for a TCP connection to `port`, in its order
    /// (RFC 6724's), with the hints SwiftNIO's resolver uses for the connection itself; `nil` when
    /// it gives none. It runs on SwiftNIO's blocking-I/O thread pool, never on the cooperative one.
    static func addresses(of host: String, port: Int) async -> [IPAddress]? {
        let found = try? await NIOThreadPool.singleton.runIfActive { lookUp(host, port: port) }
        return found.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func lookUp(_ host: String, port: Int) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry, found.count < 64 {
            if let address = current.pointee.ai_addr.flatMap(address(of:)), !found.contains(address) {
                found.append(address)
            }
            entry = current.pointee.ai_next
        }
        return found
    }

    /// Every address of this machine's interfaces, whatever their state (`getifaddrs`); empty if
    /// it fails.
    static func ownAddresses() -> Set<IPAddress> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var found: Set<IPAddress> = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            if let address = current.pointee.ifa_addr.flatMap(address(of:)) { found.insert(address) }
            entry = current.pointee.ifa_next
        }
        return found
    }

    /// The address of an `AF_INET` or `AF_INET6` socket address.
    private static func address(of socketAddress: UnsafeMutablePointer<sockaddr>) -> IPAddress? {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin_addr) { IPAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                withUnsafeBytes(of: inet6.pointee.sin6_addr) { IPAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }
}

extension RedirectReach {
    /// The rule with the system's lookups (kept here, with the lookups, so that the rule itself
    /// needs no NIO and is fuzzed on its own: Fuzz/TransferResponses).
    static let system = RedirectReach(
        lookUp: { host, port in await NetworkLookup.addresses(of: host, port: port) },
        ownAddresses: { NetworkLookup.ownAddresses() }
    )
}
