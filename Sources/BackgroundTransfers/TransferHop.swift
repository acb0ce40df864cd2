import BackgroundCore
import Foundation

/// One request of a transfer: the URL it names (the app's, or a redirect's `Location`) and where
/// the HTTP client is asked to send it (``RedirectReach``).
struct TransferHop: Sendable, Equatable {
    /// A URL's scheme, host and port, read as AsyncHTTPClient reads them (`URL.host` without
    /// IPv6 brackets, the scheme's port when none is written).
    struct Address: Sendable, Equatable {
        /// The URL as named.
        var url: String
        /// Whether it is `https`.
        var isSecure: Bool
        /// The host as written (brackets removed).
        var host: String
        /// The port connected to.
        var port: Int
        /// Whether `port` is the scheme's own (then `Host` carries no port).
        var hasDefaultPort: Bool

        /// The parts of an `http` or `https` URL with a host; `nil` for any other.
        init?(_ url: String) {
            guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                scheme == "http" || scheme == "https", var host = parsed.host, !host.isEmpty
            else { return nil }
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            let defaultPort = scheme == "https" ? 443 : 80
            self.url = url
            self.isSecure = scheme == "https"
            self.host = host
            self.port = parsed.port ?? defaultPort
            self.hasDefaultPort = self.port == defaultPort
        }

        var lowercasedHost: String { host.lowercased() }
        /// The address the host states literally, if it does.
        var literal: IPAddress? { IPAddress(literal: host) }
        /// Whether the host is `localhost` or a name under `.localhost` (RFC 6761 §6.3), with or
        /// without the root's trailing dot.
        var isLocalhost: Bool {
            var name = Substring(lowercasedHost)
            if name.hasSuffix(".") { name = name.dropLast() }
            return name == "localhost" || name.hasSuffix(".localhost")
        }
        /// Whether the host is a name to look up (not an address, not a `localhost` name).
        var isName: Bool { literal == nil && !isLocalhost }
    }

    /// Where the request is sent.
    enum Route: Sendable, Equatable {
        /// The host is an address.
        case literal(IPAddress)
        /// A `localhost` name, which the connection resolves itself.
        case localhost
        /// A name the engine looked up: sent to this address, the name in `Host`.
        case pinned(IPAddress)
        /// A name the connection looks up itself; the engine's own answer when it asked.
        case named([IPAddress]?)
    }

    /// The URL as named.
    var url: String
    /// Its parts, `nil` when the HTTP client will refuse it.
    var address: Address?
    /// Where it is sent.
    var route: Route

    init(address: Address, route: Route) {
        self.url = address.url
        self.address = address
        self.route = route
    }

    /// A URL the HTTP client will refuse itself, asked as named.
    init(unparsed url: String) {
        self.url = url
        self.address = nil
        self.route = .named(nil)
    }

    /// The statuses followed as redirects (RFC 9110 §15.4). `304 Not Modified` is an answer, and
    /// `305 Use Proxy` is deprecated (RFC 7231 §6.4.5); URLSession follows neither.
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// The absolute URL a response redirects to: a redirect status, a `Location` resolved against
    /// the URL that answered, `http` or `https` (another scheme is not a redirect: the response
    /// is the answer, as AsyncHTTPClient had it).
    static func redirectTarget(status: UInt, location: String?, from url: String) -> String? {
        guard redirectStatuses.contains(status), let location, let base = URL(string: url),
            let target = URL(string: location, relativeTo: base)?.absoluteURL.absoluteString,
            TransferURL.isAllowed(target)
        else { return nil }
        return target
    }

    /// `url` with what lies between `://` and the path (user information, host and port)
    /// replaced by `authority`.
    static func replacingAuthority(of url: String, with authority: String) -> String {
        guard let separator = url.range(of: "://") else { return url }
        let rest = url[separator.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return String(url[..<separator.upperBound]) + authority + String(rest[end...])
    }
}
