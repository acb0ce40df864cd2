import BackgroundCore
import Testing

@testable import BackgroundDevice

@Suite("Network interfaces from sysfs")
struct NetworkProbeTests {
    private func network(_ tree: FakeTree) -> Probed<DeviceConditions.Network> {
        let probe = SysfsNetworkProbe(root: tree.root)
        guard case .read(let interfaces, _) = probe.interfaces() else {
            return .unavailable(reason: "unreadable")
        }
        return NetworkReading.network(of: interfaces, routes: probe.routes())
    }

    /// A route line of `/proc/net/route` (destination and mask as the kernel prints them).
    static func route(_ interface: String, _ destination: String = "00000000", mask: String = "00000000") -> String {
        "\(interface)\t\(destination)\t00000000\t0001\t0\t0\t0\t\(mask)\t0\t0\t0"
    }

    @Test(
        "This machine's layout: eth0 up with carrier and a default route, lo, ifb0 down → unmetered network from eth0"
    )
    func machineLayout() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "1"])
        try tree.interface("lo", ["type": "772", "operstate": "unknown", "carrier": "1"])
        try tree.interface("ifb0", ["type": "1", "operstate": "down"])
        try tree.routes(RouteTableTests.ipv4, ipv6: RouteTableTests.ipv6)
        #expect(network(tree) == .read(.wifi, from: "eth0 up with carrier, default route"))
    }

    @Test("Up with carrier but no usable route (only IPv6 link-local and multicast, routes on others) is no network")
    func upWithoutRoute() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "1"])
        try tree.interface("eth1", ["type": "1", "operstate": "down", "carrier": "0"])
        try tree.routes([Self.route("eth1")], ipv6: [RouteTableTests.ipv6[1], RouteTableTests.ipv6[5]])
        #expect(network(tree) == .read(.none, from: "no usable route on an interface up with carrier (eth0)"))
        // An IPv4 link-local route (169.254.0.0/16, as avahi-autoipd adds) is no network either.
        try tree.routes([Self.route("eth0", "0000FEA9", mask: "0000FFFF")])
        #expect(network(tree).value == DeviceConditions.Network.none)
        // A route to a subnet is enough (a network without a gateway still reaches its hosts).
        try tree.routes([Self.route("eth0", "0000000A", mask: "000000FF")])
        #expect(network(tree) == .read(.wifi, from: "eth0 up with carrier, route 10.0.0.0/8"))
        // A default route is named first; IPv6 alone counts too.
        try tree.routes([], ipv6: [RouteTableTests.ipv6[0], RouteTableTests.ipv6[2]])
        #expect(network(tree) == .read(.wifi, from: "eth0 up with carrier, IPv6 default route"))
    }

    @Test("Routes unreadable: the interfaces decide and the source says why the routes were not read")
    func routesUnread() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "1"])
        let missing = "routes not read: no \(tree.path)/proc/net/route"
        #expect(network(tree) == .read(.wifi, from: "eth0 up with carrier (\(missing))"))
        try tree.write("proc/net/route", "garbage\n")
        let malformed = "routes not read: \(tree.path)/proc/net/route: line 1: no Iface header"
        #expect(network(tree) == .read(.wifi, from: "eth0 up with carrier (\(malformed))"))
        // No IPv6 (the file is missing when IPv6 is disabled): IPv4 alone is read.
        try tree.routes([Self.route("eth0")])
        let probe = SysfsNetworkProbe(root: tree.root)
        let defaultRoute = NetworkRoute(
            interface: "eth0",
            family: .ipv4,
            destination: [0, 0, 0, 0],
            prefixLength: 0,
            flags: NetworkRoute.up
        )
        #expect(probe.routes() == .read([defaultRoute], from: "\(tree.path)/proc/net/route"))
    }

    @Test("The daemon's sources pass the routes: a fake tree with eth0 up and no route reads as no network")
    func sourcesReadRoutes() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "1"])
        try tree.routes([], ipv6: [])
        let sources = DeviceSources(
            power: FixedPowerProbe(.read([], from: "test")),
            network: SysfsNetworkProbe(root: tree.root),
            memory: FixedMemoryPressureProbe(.unavailable(reason: "test"))
        )
        let reading = sources.reading(overrides: .none)
        #expect(reading.network == Sourced(.none, .probe("no usable route on an interface up with carrier (eth0)")))
        #expect(reading.conditions.network == DeviceConditions.Network.none)
    }

    @Test("Loopback alone is no network, however up it is")
    func loopbackOnly() throws {
        let tree = try FakeTree()
        try tree.interface("lo", ["type": "772", "operstate": "unknown", "carrier": "1"])
        #expect(network(tree) == .read(.none, from: "no interface but loopback"))
    }

    @Test("Up without carrier, or carrier while down, is no network")
    func noCarrier() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "0"])
        try tree.interface("wlan0", ["type": "1", "operstate": "down", "carrier": "1"])
        try tree.interface("eth1", ["type": "1", "operstate": "dormant", "carrier": "1"])
        #expect(network(tree) == .read(.none, from: "no interface up with carrier (eth0, eth1, wlan0)"))
    }

    @Test("operstate unknown with a carrier counts (tun and other virtual drivers never say up)")
    func unknownWithCarrier() throws {
        let tree = try FakeTree()
        try tree.interface("tun0", ["type": "65534", "operstate": "unknown", "carrier": "1"])
        try tree.routes([Self.route("tun0", "0000000A", mask: "000000FF")])
        #expect(network(tree) == .read(.wifi, from: "tun0 up with carrier, route 10.0.0.0/8"))
    }

    @Test("A cellular modem (DEVTYPE=wwan) alone is metered; with Wi-Fi up, Wi-Fi wins")
    func cellular() throws {
        let tree = try FakeTree()
        try tree.interface(
            "wwan0",
            ["type": "519", "operstate": "up", "carrier": "1", "uevent": "DEVTYPE=wwan\nINTERFACE=wwan0"]
        )
        try tree.routes([Self.route("wwan0")])
        #expect(network(tree) == .read(.cellular, from: "wwan0 up, a cellular modem (metered), default route"))
        try tree.interface("wlan0", ["type": "1", "operstate": "up", "carrier": "1", "uevent": "DEVTYPE=wlan"])
        // Wi-Fi without a route does not win over the routed modem; with one it does.
        #expect(network(tree).value == .cellular)
        try tree.routes([Self.route("wwan0"), Self.route("wlan0", "0001A8C0", mask: "00FFFFFF")])
        #expect(network(tree) == .read(.wifi, from: "wlan0 up with carrier, route 192.168.1.0/24"))
    }

    @Test("Garbage attributes read as unknown: no network claimed")
    func garbage() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "x", "operstate": "\u{1}\u{2}", "carrier": "maybe"])
        guard case .read(let interfaces, _) = SysfsNetworkProbe(root: tree.root).interfaces() else {
            Issue.record("unreadable")
            return
        }
        #expect(
            interfaces == [NetworkInterface(name: "eth0", hardwareType: nil, operState: "\u{1}\u{2}", carrier: nil)]
        )
        #expect(NetworkReading.network(of: interfaces).value == DeviceConditions.Network.none)
    }

    @Test("bonding_masters (a file in /sys/class/net) is not an interface; a missing directory is unavailable")
    func filesAndMissing() throws {
        let tree = try FakeTree()
        guard case .unavailable(let reason) = SysfsNetworkProbe(root: tree.root).interfaces() else {
            Issue.record("expected unavailable")
            return
        }
        #expect(reason == "no \(tree.path)/sys/class/net")
        try tree.write("sys/class/net/bonding_masters", "\n")
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "1"])
        #expect(SysfsNetworkProbe(root: tree.root).interfaces().value?.map(\.name) == ["eth0"])
        let reading = DeviceReading(
            power: .unavailable(reason: "test"),
            network: .unavailable(reason: "no /sys/class/net"),
            idleness: .read(false, from: "test"),
            memory: .unavailable(reason: "test")
        )
        #expect(reading.network == Sourced(.wifi, .defaulted(reason: "no /sys/class/net")))
    }

    @Test(
        "On this machine: carrier's EINVAL on a down interface reads as no carrier",
        .enabled(if: ProbeRoot.machine.exists("sys/class/net/ifb0"))
    )
    func realEinvalCarrier() throws {
        let root = ProbeRoot.machine
        #expect(throws: DeviceError.self) { try root.read("sys/class/net/ifb0/carrier") }
        let interface = SysfsNetworkProbe(root: root).interface(named: "ifb0")
        #expect(interface.carrier == false)
        #expect(interface.operState == "down")
    }

    @Test("The real machine's interfaces read without error")
    func realMachine() {
        guard case .read(let interfaces, _) = SysfsNetworkProbe().interfaces() else {
            Issue.record("/sys/class/net unreadable")
            return
        }
        #expect(interfaces.contains { $0.isLoopback })
    }

    @Test("The real machine's routes read without error", .enabled(if: ProbeRoot.machine.exists("proc/net/route")))
    func realRoutes() throws {
        let routes = try #require(SysfsNetworkProbe().routes())
        #expect(routes.value != nil, "\(routes)")
    }
}
