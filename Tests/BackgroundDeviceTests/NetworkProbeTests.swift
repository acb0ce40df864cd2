import BackgroundCore
import Testing

@testable import BackgroundDevice

@Suite("Network interfaces from sysfs")
struct NetworkProbeTests {
    private func network(_ tree: FakeTree) -> Probed<DeviceConditions.Network> {
        guard case .read(let interfaces, _) = SysfsNetworkProbe(root: tree.root).interfaces() else {
            return .unavailable(reason: "unreadable")
        }
        return NetworkReading.network(of: interfaces)
    }

    @Test("This machine's layout: eth0 up with carrier, lo, ifb0 down → unmetered network from eth0")
    func machineLayout() throws {
        let tree = try FakeTree()
        try tree.interface("eth0", ["type": "1", "operstate": "up", "carrier": "1"])
        try tree.interface("lo", ["type": "772", "operstate": "unknown", "carrier": "1"])
        try tree.interface("ifb0", ["type": "1", "operstate": "down"])
        #expect(network(tree) == .read(.wifi, from: "eth0 up with carrier"))
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
        #expect(network(tree).value == .wifi)
    }

    @Test("A cellular modem (DEVTYPE=wwan) alone is metered; with Wi-Fi up, Wi-Fi wins")
    func cellular() throws {
        let tree = try FakeTree()
        try tree.interface(
            "wwan0",
            ["type": "519", "operstate": "up", "carrier": "1", "uevent": "DEVTYPE=wwan\nINTERFACE=wwan0"]
        )
        #expect(network(tree) == .read(.cellular, from: "wwan0 up, a cellular modem (metered)"))
        try tree.interface("wlan0", ["type": "1", "operstate": "up", "carrier": "1", "uevent": "DEVTYPE=wlan"])
        #expect(network(tree) == .read(.wifi, from: "wlan0 up with carrier"))
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
}
