public import BackgroundCore

/// Power source and battery charge as read from the power supplies.
public struct PowerReading: Sendable, Hashable {
    /// Battery or external power.
    public var powerSource: DeviceConditions.PowerSource
    /// Charge from 0 to 1; `nil` when the machine has no battery that reports one.
    public var batteryLevel: Double?

    /// A reading.
    public init(powerSource: DeviceConditions.PowerSource, batteryLevel: Double?) {
        self.powerSource = powerSource
        self.batteryLevel = batteryLevel
    }
}

extension PowerReading {
    /// The power source the supplies describe, and what decided it.
    ///
    /// The rules, in order:
    /// 1. an adapter (`Mains`, `USB`, `Wireless`) with `online` 1 → external power;
    /// 2. adapters exist and none is online → battery;
    /// 3. no adapter but a system battery: `Discharging` → battery, `Charging`, `Full` or
    ///    `Not charging` → external power, `Unknown` or missing → battery (the cautious side);
    /// 4. no adapter and no system battery (peripherals' `Device`-scope batteries do not count):
    ///    unavailable, so the reading defaults to external power (a desktop or server on mains).
    public static func source(of supplies: [PowerSupply]) -> Probed<DeviceConditions.PowerSource> {
        let adapters = supplies.filter { $0.kind.isExternal }
        if let online = adapters.first(where: { $0.online == true }) {
            return .read(.externalPower, from: "\(online.name) online")
        }
        if !adapters.isEmpty {
            let names = adapters.map(\.name).joined(separator: ", ")
            return .read(.battery, from: "\(names) offline")
        }
        let batteries = supplies.filter(\.isSystemBattery)
        guard let battery = batteries.first else {
            return .unavailable(
                reason: supplies.isEmpty ? "no power supply found" : "no mains adapter or system battery"
            )
        }
        switch battery.status {
        case .charging, .full, .notCharging:
            return .read(.externalPower, from: "\(battery.name) \(battery.status!.rawValue), no adapter listed")
        case .discharging:
            return .read(.battery, from: "\(battery.name) Discharging")
        case .unknown, nil:
            return .read(.battery, from: "\(battery.name) status unknown, no adapter listed")
        }
    }

    /// The charge of the system batteries (the mean of their `capacity`), or why there is none.
    public static func level(of supplies: [PowerSupply]) -> Probed<Double> {
        let batteries = supplies.filter(\.isSystemBattery)
        guard !batteries.isEmpty else { return .unavailable(reason: "no battery") }
        let known = batteries.filter { $0.capacity != nil }
        guard !known.isEmpty else {
            let names = batteries.map(\.name).joined(separator: ", ")
            return .unavailable(reason: "\(names): no readable capacity")
        }
        let percent = known.reduce(0) { $0 + $1.capacity! }
        let level = Double(percent) / Double(known.count) / 100
        let names = known.map { "\($0.name) \($0.capacity!)%" }.joined(separator: ", ")
        return .read(level, from: names)
    }
}
