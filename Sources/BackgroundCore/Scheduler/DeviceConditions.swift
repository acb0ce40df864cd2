/// The state of the device that gates background work: power, battery, network, use, unlock.
///
/// The core never probes hardware; shells (the simulator's device model, the daemon's probes)
/// report changes with ``Event/setDevice(_:)``.
public struct DeviceConditions: Sendable, Hashable, Codable {
    /// Where power comes from.
    public enum PowerSource: String, Sendable, Hashable, Codable {
        /// Running on battery.
        case battery
        /// Plugged in.
        case externalPower
    }

    /// The network the device is on.
    public enum Network: String, Sendable, Hashable, Codable {
        /// No connection.
        case none
        /// Wi-Fi (or Ethernet): unmetered unless marked metered.
        case wifi
        /// Cellular: metered.
        case cellular
    }

    /// Battery or external power.
    public var powerSource: PowerSource
    /// Battery charge from 0 to 1.
    public var batteryLevel: Double
    /// Low Power Mode: Background App Refresh is off while it is on (S6).
    public var lowPowerMode: Bool
    /// The network.
    public var network: Network
    /// Whether the user is away: nothing on screen, no interaction. Processing tasks run only
    /// then, and are expired when the user comes back (S13).
    public var isIdle: Bool
    /// Whether the device has been unlocked since it started: no background task runs before
    /// the first unlock after a reboot (S16).
    public var unlockedSinceBoot: Bool

    /// Creates conditions; defaults describe a phone in use on battery and Wi-Fi.
    public init(
        powerSource: PowerSource = .battery,
        batteryLevel: Double = 0.8,
        lowPowerMode: Bool = false,
        network: Network = .wifi,
        isIdle: Bool = false,
        unlockedSinceBoot: Bool = true
    ) {
        self.powerSource = powerSource
        self.batteryLevel = batteryLevel
        self.lowPowerMode = lowPowerMode
        self.network = network
        self.isIdle = isIdle
        self.unlockedSinceBoot = unlockedSinceBoot
    }

    /// Whether any network is reachable.
    public var hasNetwork: Bool { network != .none }

    /// Whether the battery is at or below `threshold` while not charging.
    public func isCriticallyLow(threshold: Double) -> Bool {
        powerSource == .battery && batteryLevel <= threshold
    }
}
