import Glibc

/// Reads the machine's network interfaces. The daemon uses ``SysfsNetworkProbe``; tests use
/// ``FixedNetworkProbe`` or a sysfs probe over a fake tree.
public protocol NetworkProbe: Sendable {
    /// The interfaces now, sorted by name, or why they cannot be listed.
    func interfaces() -> Probed<[NetworkInterface]>
}

/// `/sys/class/net` under a ``ProbeRoot``: `type`, `operstate`, `carrier` and `uevent`'s
/// `DEVTYPE` of every interface.
public struct SysfsNetworkProbe: NetworkProbe {
    /// The directory under the root.
    public static let directory = "sys/class/net"
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

    /// A probe that always answers `answer`.
    public init(_ answer: Probed<[NetworkInterface]>) {
        self.answer = answer
    }

    public func interfaces() -> Probed<[NetworkInterface]> { answer }
}
