public import BackgroundCore

/// One entry of `/sys/class/net`.
public struct NetworkInterface: Sendable, Hashable {
    /// The interface name (`eth0`, `wlan0`, `wwan0`).
    public var name: String
    /// `type`: the ARPHRD number (1 Ethernet, 772 loopback, …); `nil` when unreadable.
    public var hardwareType: Int?
    /// `operstate` as written (`up`, `down`, `unknown`, `dormant`, …).
    public var operState: String?
    /// `carrier`: `nil` when unreadable; the kernel answers `EINVAL` on an interface that is
    /// administratively down, which reads as no carrier.
    public var carrier: Bool?
    /// `DEVTYPE=wwan` in the interface's `uevent`: a cellular modem, metered.
    public var isCellular: Bool

    /// An interface with the given attributes.
    public init(name: String, hardwareType: Int?, operState: String?, carrier: Bool?, isCellular: Bool = false) {
        self.name = name
        self.hardwareType = hardwareType
        self.operState = operState
        self.carrier = carrier
        self.isCellular = isCellular
    }

    /// ARPHRD_LOOPBACK.
    public static let loopbackType = 772

    /// Whether this is the loopback interface, which never counts as a network.
    public var isLoopback: Bool { hardwareType == Self.loopbackType || name == "lo" }

    /// Whether traffic can flow: `operstate` up and carrier 1. (`unknown` with a carrier counts
    /// too: some drivers, tun and many virtual ones, never report `up`.)
    public var isConnected: Bool {
        guard carrier == true else { return false }
        return operState == "up" || operState == "unknown"
    }
}

/// The network the interfaces and routes describe.
public enum NetworkReading {
    /// The device's network: an interface counts when it is not loopback, is up with a carrier
    /// (``NetworkInterface/isConnected``) and, where the routes were read, has a usable route
    /// (``NetworkRoute/isUsable``: a default route or any other route off the host, not only the
    /// link-local and multicast ones every interface that is up gets). `none` when no interface
    /// counts, `cellular` when only cellular modems do (metered), `wifi` otherwise (Wi-Fi or
    /// Ethernet, unmetered: metered Wi-Fi is NetworkManager's `Metered`, read over D-Bus:
    /// ``DesktopBusWatcher``).
    ///
    /// `routes` `nil` (a probe without a route source) or unavailable: the interfaces' state alone
    /// decides, and the source says the routes were not read and why.
    public static func network(
        of interfaces: [NetworkInterface],
        routes: Probed<[NetworkRoute]>? = nil
    ) -> Probed<DeviceConditions.Network> {
        let candidates = interfaces.filter { !$0.isLoopback }
        let up = candidates.filter(\.isConnected)
        var routed: [(NetworkInterface, String)] = up.map { ($0, "") }
        var unread = ""
        switch routes {
        case .read(let table, _)?:
            routed = up.compactMap { interface in
                let usable = table.filter { $0.interface == interface.name && $0.isUsable }
                let best = usable.first(where: \.isDefault) ?? usable.first
                return best.map { (interface, ", \($0)") }
            }
        case .unavailable(let reason)?: unread = " (routes not read: \(reason))"
        case nil: break
        }
        if let (unmetered, route) = routed.first(where: { !$0.0.isCellular }) {
            return .read(.wifi, from: "\(unmetered.name) up with carrier\(route)\(unread)")
        }
        if let (cellular, route) = routed.first {
            return .read(.cellular, from: "\(cellular.name) up, a cellular modem (metered)\(route)\(unread)")
        }
        if candidates.isEmpty { return .read(.none, from: "no interface but loopback") }
        if !up.isEmpty {
            let names = up.map(\.name).joined(separator: ", ")
            return .read(.none, from: "no usable route on an interface up with carrier (\(names))")
        }
        let names = candidates.map(\.name).joined(separator: ", ")
        return .read(.none, from: "no interface up with carrier (\(names))")
    }
}
