import Glibc

/// Reads the machine's network interfaces. The daemon uses ``SysfsNetworkProbe``; tests use
/// ``FixedNetworkProbe`` or a sysfs probe over a fake tree.
public protocol NetworkProbe: Sendable {
    /// The interfaces now, sorted by name, or why they cannot be listed.
    func interfaces() -> Probed<[NetworkInterface]>
    /// The routes now, or why they cannot be read; `nil` when this probe has no route source
    /// (then the interfaces' state alone decides).
    func routes() -> Probed<[NetworkRoute]>?
}

extension NetworkProbe {
    /// No route source.
    public func routes() -> Probed<[NetworkRoute]>? { nil }
}

/// `/sys/class/net` under a ``ProbeRoot``: `type`, `operstate`, `carrier` and `uevent`'s
/// `DEVTYPE` of every interface; and the routes from `/proc/net/route` and `/proc/net/ipv6_route`.
public struct SysfsNetworkProbe: NetworkProbe {
    /// The directory under the root.
    public static let directory = "sys/class/net"
    /// The IPv4 routes (the main table) under the root.
    public static let ipv4Routes = "proc/net/route"
    /// The IPv6 routes (every table) under the root; missing when IPv6 is disabled.
    public static let ipv6Routes = "proc/net/ipv6_route"
    /// Where the tree is.
    public let root: ProbeRoot

    /// A probe reading `root`.
    public init(root: ProbeRoot = .machine) {
        self.root = root
    }

    public func interfaces() -> Probed<[NetworkInterface]> {
        let listing = root.entries(Self.directory)
        guard let names = listing.value else { return .unavailable(reason: listing.reason ?? "unreadable") }
        // /sys/class/net also holds `bonding_masters` (a file) on machines with bonding loaded.
        let interfaces = names.filter { root.exists(Self.directory + "/" + $0 + "/operstate") }.map(interface(named:))
        return .read(interfaces, from: root.resolve(Self.directory))
    }

    /// The routes of both files; a file that is missing is skipped (no IPv6), both missing or
    /// either unreadable or malformed is unavailable, with the file and the reason.
    public func routes() -> Probed<[NetworkRoute]>? {
        var routes: [NetworkRoute] = []
        var files: [String] = []
        let tables: [(String, (String) throws(RouteTableError) -> [NetworkRoute])] = [
            (Self.ipv4Routes, RouteTable.ipv4), (Self.ipv6Routes, RouteTable.ipv6),
        ]
        for (file, parse) in tables {
            let text: String
            do {
                guard let read = try root.read(file) else { continue }
                text = read
            } catch {
                return .unavailable(reason: error.description)
            }
            do {
                routes += try parse(text)
            } catch {
                return .unavailable(reason: "\(root.resolve(file)): \(error)")
            }
            files.append(root.resolve(file))
        }
        guard !files.isEmpty else { return .unavailable(reason: "no \(root.resolve(Self.ipv4Routes))") }
        return .read(routes, from: files.joined(separator: ", "))
    }

    func interface(named name: String) -> NetworkInterface {
        let base = Self.directory + "/" + name + "/"
        let type: Int? =
            if case .success(let text?) = root.attribute(base + "type") { Int(text) } else { nil }
        let operState: String? =
            if case .success(let text?) = root.attribute(base + "operstate") { text } else { nil }
        let carrier: Bool? =
            switch root.attribute(base + "carrier") {
            case .success("1"): true
            case .success("0"): false
            case .failure(let error) where error.errno == EINVAL: false
            default: nil
            }
        var cellular = false
        if case .success(let text?) = Result(catching: { () throws(DeviceError) in try root.read(base + "uevent") }) {
            cellular = text.split(separator: "\n").contains("DEVTYPE=wwan")
        }
        return NetworkInterface(
            name: name,
            hardwareType: type,
            operState: operState,
            carrier: carrier,
            isCellular: cellular
        )
    }
}

/// A network probe that answers what it was given: for the daemon's tests.
public struct FixedNetworkProbe: NetworkProbe {
    /// The answer.
    public var answer: Probed<[NetworkInterface]>
    /// The routes' answer; `nil`: no route source.
    public var routeAnswer: Probed<[NetworkRoute]>?

    /// A probe that always answers `answer` and `routes`.
    public init(_ answer: Probed<[NetworkInterface]>, routes: Probed<[NetworkRoute]>? = nil) {
        self.answer = answer
        self.routeAnswer = routes
    }

    public func interfaces() -> Probed<[NetworkInterface]> { answer }

    public func routes() -> Probed<[NetworkRoute]>? { routeAnswer }
}
