public import BackgroundCore

/// The simulated device as the user and the simulator see it: more than the system's
/// ``DeviceConditions`` (the screen, a metered network, whether it is powered on at all).
public struct DeviceState: Sendable, Hashable, Codable {
    /// Battery charge from 0 to 1.
    public var batteryLevel: Double
    /// Battery or external power.
    public var powerSource: DeviceConditions.PowerSource
    /// The network.
    public var network: DeviceConditions.Network
    /// Whether the network is metered (cellular, or a hotspot). Shown in logs and timelines;
    /// `BGTaskScheduler` has no metered condition, so the scheduler does not read it.
    public var isMetered: Bool
    /// Low Power Mode.
    public var lowPowerMode: Bool
    /// Whether the screen is locked (off). A locked device becomes idle after the model's delay.
    public var isLocked: Bool
    /// Whether the user is away: processing tasks run only then.
    public var isIdle: Bool
    /// Whether the device has been unlocked since it started.
    public var unlockedSinceBoot: Bool
    /// Whether the device is on; it switches off when the battery runs out and on when plugged in.
    public var isOn: Bool
    /// The system-wide Background App Refresh switch in Settings.
    public var backgroundAppRefresh: Bool

    /// Creates a device state; defaults describe a locked phone at 80 % on battery and Wi-Fi.
    ///
    /// `isIdle` defaults to `isLocked`: a phone locked at the start has been left alone for a
    /// while. After that, a phone turns idle ``BatteryModel/idleAfterLock`` after it locks.
    public init(
        batteryLevel: Double = 0.8,
        powerSource: DeviceConditions.PowerSource = .battery,
        network: DeviceConditions.Network = .wifi,
        isMetered: Bool = false,
        lowPowerMode: Bool = false,
        isLocked: Bool = true,
        isIdle: Bool? = nil,
        unlockedSinceBoot: Bool = true,
        isOn: Bool = true,
        backgroundAppRefresh: Bool = true
    ) {
        self.backgroundAppRefresh = backgroundAppRefresh
        self.batteryLevel = batteryLevel
        self.powerSource = powerSource
        self.network = network
        self.isMetered = isMetered
        self.lowPowerMode = lowPowerMode
        self.isLocked = isLocked
        self.isIdle = isIdle ?? isLocked
        self.unlockedSinceBoot = unlockedSinceBoot
        self.isOn = isOn
    }

    /// What the system's scheduler is told.
    public var conditions: DeviceConditions {
        DeviceConditions(
            powerSource: powerSource,
            batteryLevel: batteryLevel,
            lowPowerMode: lowPowerMode,
            network: network,
            isIdle: isIdle,
            unlockedSinceBoot: unlockedSinceBoot
        )
    }

    /// A short description for logs: `battery 80 % · Wi-Fi · locked, idle`.
    public var summary: String {
        var parts = [powerSource == .externalPower ? "charging \(percent) %" : "battery \(percent) %"]
        switch network {
        case .none: parts.append("no network")
        case .wifi: parts.append(isMetered ? "Wi-Fi (metered)" : "Wi-Fi")
        case .cellular: parts.append(isMetered ? "cellular" : "cellular (unmetered)")
        }
        if lowPowerMode { parts.append("Low Power Mode") }
        var screen = [isLocked ? "locked" : "unlocked"]
        if isIdle { screen.append("idle") }
        if !unlockedSinceBoot { screen.append("not unlocked since boot") }
        parts.append(screen.joined(separator: ", "))
        if !isOn { parts = ["off"] }
        return parts.joined(separator: " · ")
    }

    /// The battery level in whole percent.
    public var percent: Int { Int((batteryLevel * 100).rounded()) }
}
