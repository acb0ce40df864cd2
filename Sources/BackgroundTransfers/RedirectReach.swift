import Foundation

/// Where a redirect may take a transfer (issue 25, finding 12): **never to an address more local
/// than the server that sent the redirect** (``AddressSpace``: the public internet, then the
/// local network, then this host). A server on the internet cannot send the daemon's requests to
/// the local network or to this machine's own services, and one on the local network cannot send
/// them to this machine; a loopback server may redirect anywhere, so local services and tests keep
/// their redirects.
///
/// What is checked is what the connection reaches, not the host's spelling:
///
/// - a host written as an address is that address; IPv4 carried in IPv6 (`::ffff:127.0.0.1`)
///   counts as the IPv4 address;
/// - `localhost` and names under `.localhost` are this host (RFC 6761 §6.3);
/// - any other name is looked up as the connection looks it up (`getaddrinfo`, which also reads
///   `127.1` and `2130706433` as 127.0.0.1), and its most local address counts. A plain-`http`
///   target is then **sent to the address checked** (its URL's host replaced by it, the name kept
///   in `Host`), so a second lookup with another answer (DNS rebinding) is never made. An `https`
///   target keeps its name, which its certificate must match: a rebinding to a local service gets
///   that service a TLS handshake it cannot complete, and no request.
///
/// The server that sent the redirect counts as where it was reached: its address (written, or the
/// one its name was sent to), this host for a `localhost` name, and for a name the connection
/// looked up itself the least local of the engine's own lookup, and never this host (a name that
/// answered the engine 127.0.0.1 may have answered the connection otherwise). A plain-`http` name
/// all of whose addresses are this host's is sent to its first, so a local name's redirects to
/// loopback stay allowed; an `https` redirect to the name of the server that sent it is followed
/// without a lookup (the certificate binds the peer to that name).
struct RedirectReach: Sendable {
    /// Looks a host name up as a connection would (``NetworkLookup/addresses(of:port:)``).
    var lookUp: @Sendable (_ host: String, _ port: Int) async -> [IPAddress]?
    /// This machine's own addresses (``NetworkLookup/ownAddresses()``).
    var ownAddresses: @Sendable () -> Set<IPAddress>

    /// What a redirect comes to.
    enum Decision: Sendable, Equatable {
        /// Follow it: the next request goes to this hop.
        case follow(TransferHop)
        /// Refused: the target is more local than the server that sent the redirect.
        case refused(Refusal)
        /// The target's name has no address, so it cannot be checked (nor connected to).
        case unresolved(host: String)
    }

    /// Why a redirect was refused.
    struct Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The URL the redirect named.
        var target: String
        /// Where it leads, and the address that made it so (`nil` for a `localhost` name).
        var targetSpace: AddressSpace
        var targetAddress: IPAddress?
        /// The URL of the server that sent the redirect, and where that server was reached.
        var source: String
        var sourceSpace: AddressSpace

        var description: String {
            let address = targetAddress.map { " (\($0))" } ?? ""
            return "the redirect from \(source) (\(sourceSpace)) to \(target) is refused: it leads to "
                + "\(targetSpace)\(address), more local than the server that sent it"
        }
    }

    /// The first request of an attempt: the transfer's own URL. `nil` for a URL the HTTP client
    /// will refuse itself.
    func origin(_ url: String) async -> TransferHop? {
        guard let parsed = TransferHop.Address(url) else { return nil }
        return await hop(parsed)
    }

    /// Whether the request that answered `source` with a redirect may go on to `url`.
    func decide(from source: TransferHop, to url: String) async -> Decision {
        guard let target = TransferHop.Address(url) else { return .follow(TransferHop(unparsed: url)) }
        let own = ownAddresses()
        if let literal = target.literal, AddressSpace.of(literal, ownAddresses: own) == .publicInternet {
            return .follow(TransferHop(address: target, route: .literal(literal)))
        }
        if target.isSecure, target.isName, target.lowercasedHost == source.address?.lowercasedHost {
            return .follow(TransferHop(address: target, route: .named(nil)))
        }
        let sourceSpace = await space(of: source, ownAddresses: own)
        if sourceSpace == .thisHost { return .follow(await hop(target)) }
        let targetSpace: AddressSpace
        let targetAddress: IPAddress?
        let next: TransferHop
        if let literal = target.literal {
            (targetSpace, targetAddress) = (AddressSpace.of(literal, ownAddresses: own), literal)
            next = TransferHop(address: target, route: .literal(literal))
        } else if target.isLocalhost {
            (targetSpace, targetAddress) = (.thisHost, nil)
            next = TransferHop(address: target, route: .localhost)
        } else {
            guard let addresses = await lookUp(target.host, target.port), let first = addresses.first else {
                return .unresolved(host: target.host)
            }
            let ranked = addresses.map { ($0, AddressSpace.of($0, ownAddresses: own)) }
            let mostLocal = ranked.reduce(ranked[0]) { $1.1 > $0.1 ? $1 : $0 }
            (targetSpace, targetAddress) = (mostLocal.1, mostLocal.0)
            next = TransferHop(address: target, route: target.isSecure ? .named(addresses) : .pinned(first))
        }
        guard targetSpace <= sourceSpace else {
            return .refused(
                Refusal(
                    target: url,
                    targetSpace: targetSpace,
                    targetAddress: targetAddress,
                    source: source.url,
                    sourceSpace: sourceSpace
                )
            )
        }
        return .follow(next)
    }

    /// The hop for an address whose target space needs no check: plain-`http` names are looked up,
    /// and sent to their first address when every address is this host's.
    private func hop(_ address: TransferHop.Address) async -> TransferHop {
        if let literal = address.literal { return TransferHop(address: address, route: .literal(literal)) }
        if address.isLocalhost { return TransferHop(address: address, route: .localhost) }
        guard !address.isSecure, let addresses = await lookUp(address.host, address.port), let first = addresses.first
        else { return TransferHop(address: address, route: .named(nil)) }
        let own = ownAddresses()
        if addresses.allSatisfy({ AddressSpace.of($0, ownAddresses: own) == .thisHost }) {
            return TransferHop(address: address, route: .pinned(first))
        }
        return TransferHop(address: address, route: .named(addresses))
    }

    /// Where the server of `hop` was reached, as a source of redirects.
    func space(of hop: TransferHop, ownAddresses own: Set<IPAddress>) async -> AddressSpace {
        switch hop.route {
        case .literal(let address), .pinned(let address):
            return AddressSpace.of(address, ownAddresses: own)
        case .localhost:
            return .thisHost
        case .named(let known):
            var addresses = known
            if addresses == nil, let address = hop.address {
                addresses = await lookUp(address.host, address.port)
            }
            let spaces = (addresses ?? []).map { AddressSpace.of($0, ownAddresses: own) }
            return min(spaces.min() ?? .publicInternet, .localNetwork)
        }
    }
}
