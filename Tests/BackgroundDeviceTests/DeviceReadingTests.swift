import BackgroundCore
import Testing

@testable import BackgroundDevice

@Suite("The sourced reading and the overrides")
struct DeviceReadingTests {
    static let eth0 = NetworkInterface(name: "eth0", hardwareType: 1, operState: "up", carrier: true)
    static let stall = PressureStall(
        some: .init(avg10: 12.5, avg60: 3, avg300: 1, total: 99),
        full: .init(avg10: 0.5, avg60: 0, avg300: 0, total: 9)
    )

    /// This machine: no power supply, eth0 up, no input devices, PSI readable.
    static func machine(_ overrides: DeviceOverrides = .none) -> DeviceReading {
        DeviceReading(
            power: .read([], from: "/sys/class/power_supply"),
            network: .read([eth0], from: "/sys/class/net"),
            idleness: .unavailable(reason: "no /dev/input"),
            memory: .read(
                MemoryPressure(
                    stall: stall,
                    stallSource: "/proc/pressure/memory",
                    memory: MemoryInfo(totalBytes: 8 << 30, availableBytes: 2 << 30)
                ),
                from: "/proc/pressure/memory"
            ),
            overrides: overrides
        )
    }

    @Test("Each condition names its source: probe, default with its reason")
    func sources() {
        let reading = Self.machine()
        #expect(
            reading.lines == [
                "power: external (default: no power supply found)",
                "battery: 100% (default: no battery)",
                "low-power: off (default: not read: no D-Bus source given)",
                "network: wifi (probe: eth0 up with carrier)",
                "metered: no (probe: no cellular modem)",
                "constrained: no (default: not read: Linux has no Low Data Mode source)",
                "idle: yes (default: no /dev/input)",
                "unlocked: yes (default: not read: no D-Bus source given)",
                "memory: some avg10=12.50% full avg10=0.50%, 2048 MiB available (probe: /proc/pressure/memory)",
            ]
        )
        #expect(
            reading.conditions
                == DeviceConditions(
                    powerSource: .externalPower,
                    batteryLevel: 1,
                    lowPowerMode: false,
                    network: .wifi,
                    isIdle: true,
                    unlockedSinceBoot: true
                )
        )
        #expect(
            reading.entries.map(\.source.kind)
                == ["default", "default", "default", "probe", "probe", "default", "default", "default"]
        )
    }

    @Test("Overrides win and read as source override; `probe` clears one")
    func overrides() throws {
        let overrides = try DeviceOverrides(parsing: "power=battery battery=15 network=none")
        let reading = Self.machine(overrides)
        #expect(
            reading.lines.prefix(4) == [
                "power: battery (override)", "battery: 15% (override)",
                "low-power: off (default: not read: no D-Bus source given)", "network: none (override)",
            ]
        )
        #expect(reading.conditions.network == DeviceConditions.Network.none)
        #expect(reading.conditions.isCriticallyLow(threshold: 0.2))
        let cleared = try overrides.applying(["network=probe", "low-power=on"])
        #expect(cleared.description == "power=battery battery=15 low-power=on")
        #expect(Self.machine(cleared).network == Sourced(.wifi, .probe("eth0 up with carrier")))
        #expect(Self.machine(cleared).lowPowerMode == Sourced(true, .override))
    }

    @Test(
        "Bad overrides are typed errors listing what is valid, and nothing is applied",
        arguments: [
            ("power=mains", "power='mains' is not valid (valid: battery, external, or probe to clear)"),
            (
                "battery=101",
                "battery='101' is not valid (valid: an integer percentage 0...100 (15 or 15%), or probe to clear)"
            ),
            (
                "battery=-1",
                "battery='-1' is not valid (valid: an integer percentage 0...100 (15 or 15%), or probe to clear)"
            ),
            (
                "battery=1.5",
                "battery='1.5' is not valid (valid: an integer percentage 0...100 (15 or 15%), or probe to clear)"
            ),
            ("network=ethernet", "network='ethernet' is not valid (valid: none, wifi, cellular, or probe to clear)"),
            ("idle=true", "idle='true' is not valid (valid: yes, no, or probe to clear)"),
            (
                "charger=on",
                "unknown key 'charger' (valid: power, battery, network, metered, constrained, low-power, idle, unlocked)"
            ),
            (
                "battery",
                "'battery' is not key=value (keys: power, battery, network, metered, constrained, low-power, idle, unlocked)"
            ),
            ("power=battery power=external", "'power' given twice"),
            ("", "no key=value given (keys: power, battery, network, metered, constrained, low-power, idle, unlocked)"),
        ]
    )
    func badOverrides(text: String, message: String) {
        #expect {
            _ = try DeviceOverrides(parsing: text)
        } throws: { error in
            (error as? DeviceOverrideError)?.description == message
        }
    }

    @Test("Overrides round-trip through their text, percent signs accepted")
    func roundTrip() throws {
        let overrides = try DeviceOverrides(
            parsing: "unlocked=no idle=yes battery=7% power=external network=cellular low-power=off"
        )
        #expect(overrides.description == "power=external battery=7 network=cellular low-power=off idle=yes unlocked=no")
        #expect(try DeviceOverrides(parsing: overrides.description) == overrides)
        #expect(DeviceOverrides.none.description.isEmpty)
        #expect(try DeviceOverrides(parsing: "power=probe").isEmpty)
    }

    @Test("Each default reason and problem is said once, and a new one when it changes")
    func reasonsOnce() {
        var reported = ReportedReasons()
        let first = reported.unsaid(in: Self.machine())
        #expect(
            first == [
                "power: no power supply found", "battery: no battery", "low-power: not read: no D-Bus source given",
                "constrained: not read: Linux has no Low Data Mode source", "idle: no /dev/input",
                "unlocked: not read: no D-Bus source given",
            ]
        )
        #expect(reported.unsaid(in: Self.machine()).isEmpty)
        let broken = DeviceReading(
            power: .read([PowerSupply(name: "BAT0", kind: .battery, problems: ["no capacity"])], from: "x"),
            network: .unavailable(reason: "no /sys/class/net"),
            idleness: .unavailable(reason: "no /dev/input"),
            memory: .unavailable(reason: "no PSI")
        )
        #expect(
            reported.unsaid(in: broken) == [
                "battery: BAT0: no readable capacity", "network: no /sys/class/net", "metered: no /sys/class/net",
                "memory: no PSI",
                "BAT0: no capacity",
            ]
        )
        #expect(reported.unsaid(in: broken).isEmpty)
    }

    @Test("The real machine reads end to end without error")
    func realMachine() throws {
        let input = try InputActivityWatcher()
        let reading = DeviceReading(
            power: SysfsPowerProbe().supplies(),
            network: SysfsNetworkProbe().interfaces(),
            idleness: input.idleness(),
            memory: ProcMemoryPressureProbe().pressure()
        )
        #expect(reading.lines.count == 9)
    }
}

@Suite("Overrides of the network's cost and Low Power Mode")
struct NetworkCostOverrideTests {
    @Test("metered and constrained override the network's cost for transfers; lowpower is low-power")
    func meteredAndConstrained() throws {
        let overrides = try DeviceOverrides(parsing: "metered=yes constrained=yes lowpower=on")
        #expect(overrides.description == "metered=yes constrained=yes low-power=on")
        let reading = DeviceReading(
            power: .unavailable(reason: "no power supply found"),
            network: .read(
                [NetworkInterface(name: "eth0", hardwareType: 1, operState: "up", carrier: true)],
                from: "x"
            ),
            idleness: .unavailable(reason: "no /dev/input"),
            memory: .unavailable(reason: "no PSI"),
            overrides: overrides
        )
        #expect(reading.transferNetwork == TransferNetwork(network: .wifi, isExpensive: true, isConstrained: true))
        #expect(reading.conditions.lowPowerMode)
        #expect(reading.lines.contains("metered: yes (override)"))
        #expect(throws: DeviceOverrideError.invalidValue(key: .metered, value: "maybe")) {
            try DeviceOverrides(parsing: "metered=maybe")
        }
    }

    @Test("a cellular modem reads as metered from the probe")
    func cellularIsMetered() {
        let reading = DeviceReading(
            power: .unavailable(reason: "none"),
            network: .read(
                [NetworkInterface(name: "wwan0", hardwareType: 1, operState: "up", carrier: true, isCellular: true)],
                from: "x"
            ),
            idleness: .unavailable(reason: "none"),
            memory: .unavailable(reason: "none")
        )
        #expect(reading.metered == Sourced(true, .probe("a cellular modem")))
        #expect(reading.transferNetwork.isExpensive)
    }
}
