public import BackgroundCore

/// The device's conditions as the daemon reports them to the core, each with its source:
/// read by a probe, the documented default (with the reason the probe had nothing), or the
/// developer's override.
///
/// Defaults, used only where a probe has nothing to read:
///
/// | condition | default | why |
/// |---|---|---|
/// | power | external power | no power supply listed: a desktop or server on mains |
/// | battery | 100 % | no battery |
/// | Low Power Mode | off | no power-profiles-daemon on the D-Bus system bus |
/// | network | Wi-Fi (unmetered) | `/sys/class/net` unreadable: do not hold back network work on a guess |
/// | idle | idle | no input device: nobody can be using the machine |
/// | metered | no | not cellular, and no NetworkManager `Metered` on the D-Bus system bus |
/// | unlocked since boot | yes | no logind session on seat0 on the D-Bus system bus |
public struct DeviceReading: Sendable, Hashable {
    /// Battery or external power.
    public var power: Sourced<DeviceConditions.PowerSource>
    /// Battery level, 0...1.
    public var battery: Sourced<Double>
    /// Low Power Mode.
    public var lowPowerMode: Sourced<Bool>
    /// The network.
    public var network: Sourced<DeviceConditions.Network>
    /// Whether the network is metered (expensive): cellular, or marked so.
    public var metered: Sourced<Bool>
    /// Whether the network is constrained (Low Data Mode).
    public var constrained: Sourced<Bool>
    /// Whether the user is away.
    public var idle: Sourced<Bool>
    /// Whether the device was unlocked since boot.
    public var unlockedSinceBoot: Sourced<Bool>
    /// Memory pressure (not a scheduling condition; the reclaim policy reads it).
    public var memory: Probed<MemoryPressure>
    /// What the probes could not make sense of (a garbage `capacity`), one line each, for the
    /// daemon's log.
    public var problems: [String]

    /// The reason Low Power Mode, the lock state and NetworkManager's `Metered` use their
    /// defaults in a reading built without a ``DesktopBusWatcher`` (tests, `--device-probes none`).
    public static let noDBusReason = "not read: no D-Bus source given"
    /// The reason Low Data Mode uses its default.
    public static let noLowDataModeReason = "not read: Linux has no Low Data Mode source"

    /// The network as transfers see it (metered is expensive, constrained is Low Data Mode).
    public var transferNetwork: TransferNetwork {
        TransferNetwork(network: network.value, isExpensive: metered.value, isConstrained: constrained.value)
    }

    /// Combines what the probes found, the defaults and the overrides. `routes` `nil`: no route
    /// source (the interfaces' state alone decides the network).
    public init(
        power supplies: Probed<[PowerSupply]>,
        network interfaces: Probed<[NetworkInterface]>,
        routes: Probed<[NetworkRoute]>? = nil,
        idleness: Probed<Bool>,
        memory: Probed<MemoryPressure>,
        lowPowerMode: Probed<Bool> = .unavailable(reason: DeviceReading.noDBusReason),
        unlocked: Probed<Bool> = .unavailable(reason: DeviceReading.noDBusReason),
        metered meteredHint: Probed<Bool> = .unavailable(reason: DeviceReading.noDBusReason),
        overrides: DeviceOverrides = .none
    ) {
        let powerSource: Probed<DeviceConditions.PowerSource>
        let level: Probed<Double>
        switch supplies {
        case .read(let list, _):
            powerSource = PowerReading.source(of: list)
            level = PowerReading.level(of: list)
            problems = list.flatMap { supply in supply.problems.map { "\(supply.name): \($0)" } }
        case .unavailable(let reason):
            powerSource = .unavailable(reason: reason)
            level = .unavailable(reason: reason)
            problems = []
        }
        let network: Probed<DeviceConditions.Network> =
            switch interfaces {
            case .read(let list, _): NetworkReading.network(of: list, routes: routes)
            case .unavailable(let reason): .unavailable(reason: reason)
            }
        self.power = Sourced(powerSource, default: .externalPower)
        self.battery = Sourced(level, default: 1)
        self.lowPowerMode = Sourced(lowPowerMode, default: false)
        self.network = Sourced(network, default: .wifi)
        self.metered = Sourced(Self.metered(network, hint: meteredHint), default: false)
        self.constrained = Sourced(.unavailable(reason: Self.noLowDataModeReason), default: false)
        self.idle = Sourced(idleness, default: true)
        self.unlockedSinceBoot = Sourced(unlocked, default: true)
        self.memory = memory
        apply(overrides)
    }

    /// Metered: a cellular modem always is; otherwise NetworkManager's `Metered` where it was
    /// read (metered Wi-Fi, a phone's hotspot); otherwise not, from the network probe.
    static func metered(_ network: Probed<DeviceConditions.Network>, hint: Probed<Bool>) -> Probed<Bool> {
        switch (network, hint) {
        case (.read(.cellular, _), _): return .read(true, from: "a cellular modem")
        case (.read(.none, _), _): return .read(false, from: "no network")
        case (.read, .read(let metered, let from)): return .read(metered, from: from)
        case (.read, .unavailable): return .read(false, from: "no cellular modem")
        case (.unavailable(let reason), _): return .unavailable(reason: reason)
        }
    }

    /// Conditions nobody probed (a daemon built without probes, in tests): each one `default`
    /// with `reason`, memory unknown, then the overrides.
    public init(configured conditions: DeviceConditions, reason: String, overrides: DeviceOverrides = .none) {
        power = Sourced(conditions.powerSource, .defaulted(reason: reason))
        battery = Sourced(conditions.batteryLevel, .defaulted(reason: reason))
        lowPowerMode = Sourced(conditions.lowPowerMode, .defaulted(reason: reason))
        network = Sourced(conditions.network, .defaulted(reason: reason))
        metered = Sourced(conditions.network == .cellular, .defaulted(reason: reason))
        constrained = Sourced(false, .defaulted(reason: reason))
        idle = Sourced(conditions.isIdle, .defaulted(reason: reason))
        unlockedSinceBoot = Sourced(conditions.unlockedSinceBoot, .defaulted(reason: reason))
        memory = .unavailable(reason: reason)
        problems = []
        apply(overrides)
    }

    private mutating func apply(_ overrides: DeviceOverrides) {
        if let value = overrides.power { power = Sourced(value, .override) }
        if let value = overrides.batteryPercent { battery = Sourced(Double(value) / 100, .override) }
        if let value = overrides.network { network = Sourced(value, .override) }
        if let value = overrides.metered { metered = Sourced(value, .override) }
        if let value = overrides.constrained { constrained = Sourced(value, .override) }
        if let value = overrides.lowPowerMode { lowPowerMode = Sourced(value, .override) }
        if let value = overrides.isIdle { idle = Sourced(value, .override) }
        if let value = overrides.unlockedSinceBoot { unlockedSinceBoot = Sourced(value, .override) }
    }

    /// The values for the core's ``Event/setDevice(_:)``.
    public var conditions: DeviceConditions {
        DeviceConditions(
            powerSource: power.value,
            batteryLevel: battery.value,
            lowPowerMode: lowPowerMode.value,
            network: network.value,
            isIdle: idle.value,
            unlockedSinceBoot: unlockedSinceBoot.value
        )
    }

    /// One entry per condition, in a fixed order: name, value as text, source.
    public var entries: [(name: String, value: String, source: ConditionSource)] {
        [
            ("power", power.value == .battery ? "battery" : "external", power.source),
            ("battery", "\(Int((battery.value * 100).rounded()))%", battery.source),
            ("low-power", lowPowerMode.value ? "on" : "off", lowPowerMode.source),
            ("network", network.value.rawValue, network.source),
            ("metered", metered.value ? "yes" : "no", metered.source),
            ("constrained", constrained.value ? "yes" : "no", constrained.source),
            ("idle", idle.value ? "yes" : "no", idle.source),
            ("unlocked", unlockedSinceBoot.value ? "yes" : "no", unlockedSinceBoot.source),
        ]
    }

    /// `power: external (default: no power supply found)` and so on, one line per condition,
    /// then memory: what `bgctl status` prints.
    public var lines: [String] {
        var lines = entries.map { "\($0.name): \($0.value) (\($0.source))" }
        switch memory {
        case .read(let pressure, let from):
            var text = "memory: some avg10=\(PressureStall.twoDecimals(pressure.stall.some.avg10))%"
            if let full = pressure.stall.full { text += " full avg10=\(PressureStall.twoDecimals(full.avg10))%" }
            if let info = pressure.memory { text += ", \(info.availableBytes / 1_048_576) MiB available" }
            lines.append(text + " (probe: \(from))")
        case .unavailable(let reason):
            lines.append("memory: unknown (\(reason))")
        }
        return lines
    }

    /// Every condition's default reason, as `condition: reason`, in the fixed order: what the
    /// daemon logs once.
    public var defaultReasons: [String] {
        var reasons = entries.compactMap { entry -> String? in
            guard case .defaulted(let reason) = entry.source else { return nil }
            return "\(entry.name): \(reason)"
        }
        if case .unavailable(let reason) = memory { reasons.append("memory: \(reason)") }
        return reasons
    }
}

/// The reasons and problems already logged, so each is said once: the daemon passes every new
/// reading and logs what comes back.
public struct ReportedReasons: Sendable, Hashable {
    private var said: Set<String> = []

    /// Nothing said yet.
    public init() {}

    /// The reasons and problems of `reading` not said before, in the reading's order; they count
    /// as said from now on.
    public mutating func unsaid(in reading: DeviceReading) -> [String] {
        (reading.defaultReasons + reading.problems).filter { said.insert($0).inserted }
    }
}
