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

/// The network the interfaces describe.
public enum NetworkReading {
    /// The device's network: `none` when no non-loopback interface is connected, `cellular`
    /// when only cellular modems are (metered), `wifi` otherwise (Wi-Fi or Ethernet, unmetered:
    /// metered Wi-Fi is NetworkManager's `Metered`, read over D-Bus: ``DesktopBusWatcher``).
    public static func network(of interfaces: [NetworkInterface]) -> Probed<DeviceConditions.Network> {
        let candidates = interfaces.filter { !$0.isLoopback }
        let connected = candidates.filter(\.isConnected)
        if let unmetered = connected.first(where: { !$0.isCellular }) {
            return .read(.wifi, from: "\(unmetered.name) up with carrier")
        }
        if let cellular = connected.first {
            return .read(.cellular, from: "\(cellular.name) up, a cellular modem (metered)")
        }
        if candidates.isEmpty { return .read(.none, from: "no interface but loopback") }
        let names = candidates.map(\.name).joined(separator: ", ")
        return .read(.none, from: "no interface up with carrier (\(names))")
    }
}
