import BackgroundCore
import Glibc
import Testing

@testable import BackgroundDevice

@Suite("Power supplies from sysfs")
struct PowerProbeTests {
    private func read(_ tree: FakeTree) -> [PowerSupply] {
        guard case .read(let supplies, _) = SysfsPowerProbe(root: tree.root).supplies() else {
            Issue.record("power_supply unreadable")
            return []
        }
        return supplies
    }

    @Test("An empty power_supply (this machine) is unavailable, so the reading defaults to external power")
    func emptyDirectory() throws {
        let tree = try FakeTree()
        try tree.directory("sys/class/power_supply")
        let supplies = read(tree)
        #expect(supplies.isEmpty)
        #expect(PowerReading.source(of: supplies) == .unavailable(reason: "no power supply found"))
        let reading = DeviceReading(
            power: SysfsPowerProbe(root: tree.root).supplies(),
            network: .read([], from: "test"),
            idleness: .read(false, from: "test"),
            memory: .unavailable(reason: "test")
        )
        #expect(reading.power == Sourced(.externalPower, .defaulted(reason: "no power supply found")))
        #expect(reading.battery == Sourced(1.0, .defaulted(reason: "no battery")))
        #expect(reading.lines.first == "power: external (default: no power supply found)")
    }

    @Test("A missing power_supply directory is unavailable and names the path")
    func missingDirectory() throws {
        let tree = try FakeTree()
        guard case .unavailable(let reason) = SysfsPowerProbe(root: tree.root).supplies() else {
            Issue.record("expected unavailable")
            return
        }
        #expect(reason == "no \(tree.path)/sys/class/power_supply")
    }

    @Test(
        "Each adapter type online means external power",
        arguments: ["Mains", "USB", "USB_C", "USB_PD", "Wireless"]
    )
    func adapterOnline(type: String) throws {
        let tree = try FakeTree()
        try tree.supply("ADP1", ["type": type, "online": "1"])
        try tree.supply("BAT0", ["type": "Battery", "capacity": "40", "status": "Charging"])
        let supplies = read(tree)
        #expect(PowerReading.source(of: supplies) == .read(.externalPower, from: "ADP1 online"))
        #expect(PowerReading.level(of: supplies) == .read(0.4, from: "BAT0 40%"))
        #expect(supplies.first?.kind.isExternal == true)
    }

    @Test("Adapters all offline mean battery")
    func adaptersOffline() throws {
        let tree = try FakeTree()
        try tree.supply("AC", ["type": "Mains", "online": "0"])
        try tree.supply("usb", ["type": "USB", "online": "0"])
        try tree.supply("BAT0", ["type": "Battery", "capacity": "15", "status": "Discharging"])
        #expect(PowerReading.source(of: read(tree)) == .read(.battery, from: "AC, usb offline"))
    }

    @Test(
        "Without an adapter, the battery's status decides",
        arguments: [
            ("Charging", DeviceConditions.PowerSource.externalPower),
            ("Full", .externalPower),
            ("Not charging", .externalPower),
            ("Discharging", .battery),
            ("Unknown", .battery),
        ]
    )
    func batteryStatus(status: String, expected: DeviceConditions.PowerSource) throws {
        let tree = try FakeTree()
        try tree.supply("BAT0", ["type": "Battery", "capacity": "70", "status": status])
        let supplies = read(tree)
        #expect(supplies.first?.status?.rawValue == status)
        #expect(PowerReading.source(of: supplies).value == expected)
        #expect(supplies.first?.problems == [])
    }

    @Test("Two batteries give the mean capacity; a peripheral's Device-scope battery and an absent one do not count")
    func batteriesAndScope() throws {
        let tree = try FakeTree()
        try tree.supply("BAT0", ["type": "Battery", "capacity": "80", "status": "Discharging"])
        try tree.supply("BAT1", ["type": "Battery", "capacity": "40", "status": "Discharging"])
        try tree.supply("BAT2", ["type": "Battery", "capacity": "5", "status": "Discharging", "present": "0"])
        try tree.supply(
            "hidpp_battery_0",
            ["type": "Battery", "capacity": "3", "status": "Discharging", "scope": "Device"]
        )
        let supplies = read(tree)
        #expect(supplies.map(\.name) == ["BAT0", "BAT1", "BAT2", "hidpp_battery_0"])
        #expect(PowerReading.level(of: supplies) == .read(0.6, from: "BAT0 80%, BAT1 40%"))
    }

    @Test("Only a peripheral's battery: no system supply, default external power")
    func onlyDeviceScope() throws {
        let tree = try FakeTree()
        try tree.supply("hid-mouse", ["type": "Battery", "capacity": "50", "status": "Discharging", "scope": "Device"])
        #expect(PowerReading.source(of: read(tree)) == .unavailable(reason: "no mains adapter or system battery"))
    }

    @Test("UPS and unknown types are kept but never decide the power source")
    func otherTypes() throws {
        let tree = try FakeTree()
        try tree.supply("ups", ["type": "UPS", "online": "1"])
        try tree.supply("thing", ["type": "Gizmo", "online": "1"])
        let supplies = read(tree)
        #expect(supplies.map(\.kind) == [.other("Gizmo"), .ups])
        #expect(PowerReading.source(of: supplies).value == nil)
    }

    @Test("Garbage values are left out and named as problems; nothing crashes")
    func garbageValues() throws {
        let tree = try FakeTree()
        try tree.supply("AC", ["type": "Mains", "online": "yes"])
        try tree.supply("BAT0", ["type": "Battery", "capacity": "abc", "status": "Exploding"])
        try tree.supply("BAT1", ["type": "Battery", "capacity": "250", "status": ""])
        let supplies = read(tree)
        #expect(supplies[0].online == nil)
        #expect(supplies[0].problems == ["online \"yes\" is not 0 or 1", "no readable online"])
        #expect(supplies[1].capacity == nil)
        #expect(supplies[1].status == nil)
        #expect(
            supplies[1].problems == [
                "capacity \"abc\" is not a percentage", "status \"Exploding\" is not a known status",
            ]
        )
        #expect(supplies[2].problems.first == "capacity \"250\" is not a percentage")
        #expect(PowerReading.level(of: supplies) == .unavailable(reason: "BAT0, BAT1: no readable capacity"))
        let reading = DeviceReading(
            power: .read(supplies, from: "test"),
            network: .read([], from: "test"),
            idleness: .read(false, from: "test"),
            memory: .unavailable(reason: "test")
        )
        #expect(reading.problems.contains("BAT0: capacity \"abc\" is not a percentage"))
    }

    @Test("Missing attributes: no type skips the entry, no capacity or status is a problem")
    func missingFiles() throws {
        let tree = try FakeTree()
        try tree.supply("notype", ["online": "1"])
        try tree.supply("BAT0", ["type": "Battery"])
        let supplies = read(tree)
        #expect(supplies.map(\.name) == ["BAT0"])
        #expect(supplies[0].problems == ["no capacity", "no status"])
        #expect(PowerReading.source(of: supplies) == .read(.battery, from: "BAT0 status unknown, no adapter listed"))
    }

    @Test("A huge attribute file is refused at the root's limit, not read whole")
    func hugeFileBounded() throws {
        let tree = try FakeTree()
        try tree.supply("BAT0", ["type": "Battery", "status": "Full"])
        try tree.write("sys/class/power_supply/BAT0/capacity", String(repeating: "9", count: 200_000))
        let root = ProbeRoot(tree.path, limit: 4096)
        #expect(throws: DeviceError.tooLarge(path: root.resolve("sys/class/power_supply/BAT0/capacity"), limit: 4096)) {
            try root.read("sys/class/power_supply/BAT0/capacity")
        }
        guard case .read(let supplies, _) = SysfsPowerProbe(root: root).supplies() else {
            Issue.record("unreadable")
            return
        }
        #expect(supplies[0].capacity == nil)
        #expect(supplies[0].problems.first?.hasSuffix("larger than 4096 bytes") == true)
    }

    @Test("A symbolic link as an attribute is not followed")
    func symlinkAttribute() throws {
        let tree = try FakeTree()
        try tree.supply("BAT0", ["type": "Battery", "status": "Full"])
        try tree.write("elsewhere", "42\n")
        #expect(symlink(tree.path + "/elsewhere", tree.path + "/sys/class/power_supply/BAT0/capacity") == 0)
        let supplies = read(tree)
        #expect(supplies[0].capacity == nil)
        #expect(supplies[0].problems.first?.contains("Too many levels of symbolic links") == true)
    }

    @Test("The fixed probe answers what it was given")
    func fixedProbe() {
        let probe: any PowerProbe = FixedPowerProbe(
            .read([PowerSupply(name: "AC", kind: .mains, online: true)], from: "fake")
        )
        #expect(PowerReading.source(of: probe.supplies().value ?? []) == .read(.externalPower, from: "AC online"))
    }
}
