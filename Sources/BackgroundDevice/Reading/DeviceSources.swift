/// Everything the daemon reads the device through: the probes, the watchers that say when to
/// read them again, and what could not be set up.
///
/// ``machine(cgroup:)`` builds the real ones; tests build their own from fakes
/// (``FixedPowerProbe``, a ``SettableProbe``, fake trees under a ``ProbeRoot``).
public struct DeviceSources: Sendable {
    /// Power supplies and batteries.
    public var power: any PowerProbe
    /// Network interfaces.
    public var network: any NetworkProbe
    /// Memory pressure (PSI) and available memory.
    public var memory: any MemoryPressureProbe
    /// Whether the user is away (input devices, logind's `IdleHint`).
    public var idleness: @Sendable () -> Probed<Bool>
    /// Low Power Mode (power-profiles-daemon's `power-saver`).
    public var lowPowerMode: @Sendable () -> Probed<Bool>
    /// Whether the device was unlocked since boot (logind's `LockedHint`).
    public var unlocked: @Sendable () -> Probed<Bool>
    /// Whether the network is marked metered (NetworkManager's `Metered`).
    public var metered: @Sendable () -> Probed<Bool>
    /// Watchers whose wake-ups mean "read the scheduling conditions again".
    public var conditionWatchers: [any DeviceWatcher]
    /// The watcher whose wake-ups mean "read the memory pressure again" (a PSI trigger).
    public var memoryWatcher: (any DeviceWatcher)?
    /// What could not be set up (a watcher the kernel refused), one line each, logged once.
    public var problems: [String]

    /// Sources from the given probes; nothing watched unless given.
    public init(
        power: any PowerProbe,
        network: any NetworkProbe,
        memory: any MemoryPressureProbe,
        idleness: @escaping @Sendable () -> Probed<Bool> = { .unavailable(reason: "no input probe") },
        lowPowerMode: @escaping @Sendable () -> Probed<Bool> = { .unavailable(reason: DeviceReading.noDBusReason) },
        unlocked: @escaping @Sendable () -> Probed<Bool> = { .unavailable(reason: DeviceReading.noDBusReason) },
        metered: @escaping @Sendable () -> Probed<Bool> = { .unavailable(reason: DeviceReading.noDBusReason) },
        conditionWatchers: [any DeviceWatcher] = [],
        memoryWatcher: (any DeviceWatcher)? = nil,
        problems: [String] = []
    ) {
        self.power = power
        self.network = network
        self.memory = memory
        self.idleness = idleness
        self.lowPowerMode = lowPowerMode
        self.unlocked = unlocked
        self.metered = metered
        self.conditionWatchers = conditionWatchers
        self.memoryWatcher = memoryWatcher
        self.problems = problems
    }

    /// Reads every probe now and combines them with `overrides`.
    public func reading(overrides: DeviceOverrides) -> DeviceReading {
        DeviceReading(
            power: power.supplies(),
            network: network.interfaces(),
            routes: network.routes(),
            idleness: idleness(),
            memory: memory.pressure(),
            lowPowerMode: lowPowerMode(),
            unlocked: unlocked(),
            metered: metered(),
            overrides: overrides
        )
    }

    /// The machine's probes and watchers: sysfs power and network (inotify, uevents,
    /// rtnetlink), input devices, the D-Bus system bus (``DesktopBusWatcher``: Low Power Mode,
    /// logind's idle and lock hints, NetworkManager's `Metered`; `busAddress` for another bus),
    /// and PSI for `cgroup` (relative to `/`, e.g.
    /// `sys/fs/cgroup/unified/backgroundd`) or the system. A watcher the kernel refuses is left
    /// out and named in ``problems``; its condition is then read only when another wakes.
    public static func machine(cgroup: String? = nil, busAddress: String? = nil) -> DeviceSources {
        var problems: [String] = []
        var watchers: [any DeviceWatcher] = []
        func make<Watcher: DeviceWatcher>(_ name: String, _ build: () throws(DeviceError) -> Watcher) -> Watcher? {
            do {
                return try build()
            } catch {
                problems.append("\(name) watcher not started: \(error)")
                return nil
            }
        }
        if let power = make("power", { () throws(DeviceError) in try PowerSupplyWatcher() }) { watchers.append(power) }
        if let network = make("network", { () throws(DeviceError) in try NetworkWatcher() }) {
            watchers.append(network)
        }
        let input = make("input", { () throws(DeviceError) in try InputActivityWatcher() })
        if let input { watchers.append(input) }
        let bus = make("D-Bus", { () throws(DeviceError) in try DesktopBusWatcher(address: busAddress) })
        if let bus { watchers.append(bus) }
        let memory = ProcMemoryPressureProbe(cgroup: cgroup)
        let memoryWatcher: MemoryPressureWatcher? = memory.stallFile.flatMap { file in
            make("memory", { () throws(DeviceError) in try MemoryPressureWatcher(file: file) })
        }
        return DeviceSources(
            power: SysfsPowerProbe(),
            network: SysfsNetworkProbe(),
            memory: memory,
            idleness: { Self.idleness(input: input?.idleness(), bus: bus?.idleHint()) },
            lowPowerMode: { bus?.lowPowerMode() ?? .unavailable(reason: "no D-Bus watcher") },
            unlocked: { bus?.unlockedSinceBoot() ?? .unavailable(reason: "no D-Bus watcher") },
            metered: { bus?.metered() ?? .unavailable(reason: "no D-Bus watcher") },
            conditionWatchers: watchers,
            memoryWatcher: memoryWatcher,
            problems: problems
        )
    }

    /// Idle from the input devices where they were read, else logind's `IdleHint`, else the
    /// input probe's reason (and the bus's).
    static func idleness(input: Probed<Bool>?, bus: Probed<Bool>?) -> Probed<Bool> {
        if let input, input.value != nil { return input }
        if let bus, bus.value != nil { return bus }
        let reasons = [input?.reason ?? "no input watcher", bus?.reason].compactMap { $0 }
        return .unavailable(reason: reasons.joined(separator: "; "))
    }
}
