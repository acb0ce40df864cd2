public import BackgroundCore

/// How fast the simulated battery drains and charges. Every number is **ours**: round figures
/// for a recent phone, chosen so that a day of use looks like a day of use (a full battery
/// lasts about ten hours of screen time or ten days on standby; a 20 W charger reaches 80 % in
/// under an hour, then slows down). Change them to model another device.
///
/// The level moves linearly between events at a rate set by what the device is doing, so the
/// simulator knows exactly when it crosses each whole percent, the Low Power Mode threshold,
/// full and empty, and schedules those crossings instead of polling.
public struct BatteryModel: Sendable, Hashable, Codable {
    /// Drain with the screen off and nothing running, per hour.
    public var standbyPerHour = 0.004
    /// Extra drain while the screen is on, per hour.
    public var screenOnPerHour = 0.10
    /// Extra drain for each app running in the background (CPU), per hour.
    public var backgroundWorkPerHour = 0.04
    /// Extra drain of the Wi-Fi radio while any app runs, per hour.
    public var wifiPerHour = 0.01
    /// Extra drain of the cellular radio while any app runs, per hour.
    public var cellularPerHour = 0.04
    /// Charging rate below ``taperLevel``, per hour.
    public var chargePerHour = 1.0
    /// Charging rate above ``taperLevel``, per hour.
    public var taperedChargePerHour = 0.2
    /// Where charging slows down.
    public var taperLevel = 0.8
    /// Drain is multiplied by this in Low Power Mode.
    public var lowPowerModeFactor = 0.75
    /// Whether Low Power Mode switches on by itself when the battery reaches the policy's
    /// critical level (`SchedulingPolicy.criticalBatteryLevel`, 20 %). On iOS it is the user's
    /// choice: the system offers it at 20 %; the model assumes the user accepts. Set `false` to
    /// model a user who declines.
    public var switchesLowPowerModeOn = true
    /// Low Power Mode switches itself off when charging reaches this level, as iOS does at 80 %.
    public var lowPowerModeOffLevel = 0.8
    /// How long after the screen locks the device counts as idle (**ours**).
    public var idleAfterLock: Duration = .seconds(600)

    /// Creates the default model.
    public init() {}

    /// The battery level's rate of change, per second, for what the device is doing.
    public func rate(for activity: DeviceActivity, at level: Double) -> Double {
        var drain = standbyPerHour
        if activity.screenOn { drain += screenOnPerHour }
        drain += Double(activity.backgroundWorkers) * backgroundWorkPerHour
        if activity.screenOn || activity.backgroundWorkers > 0 {
            switch activity.network {
            case .wifi: drain += wifiPerHour
            case .cellular: drain += cellularPerHour
            case .none: break
            }
        }
        if activity.lowPowerMode { drain *= lowPowerModeFactor }
        var perHour = -drain
        if activity.charging {
            perHour += level < taperLevel ? chargePerHour : taperedChargePerHour
            if level >= 1 { perHour = min(perHour, 0) }
        }
        return perHour / 3600
    }

    /// The next level the simulator stops at, moving at `rate` from `level`: the next whole
    /// percent in that direction (every percent is a step in the log and the timeline).
    ///
    /// - Returns: The target level and the time to reach it, or `nil` if the level stays put.
    public func nextStep(from level: Double, rate: Double) -> (level: Double, after: Duration)? {
        guard rate != 0 else { return nil }
        let percent = level * 100
        let nearest = percent.rounded()
        let onStep = abs(percent - nearest) < 1e-9
        let target: Double
        if rate < 0 {
            target = (onStep ? nearest - 1 : percent.rounded(.down)) / 100
            guard target >= 0 || level > 0 else { return nil }
        } else {
            target = (onStep ? nearest + 1 : percent.rounded(.up)) / 100
            guard level < 1 else { return nil }
        }
        let clamped = min(max(target, 0), 1)
        let seconds = (clamped - level) / rate
        return (clamped, .seconds(fromInterval: max(seconds, 0)))
    }
}

/// What the device is doing, as far as the battery is concerned.
public struct DeviceActivity: Sendable, Hashable {
    /// Whether the screen is on.
    public var screenOn: Bool
    /// How many apps are running in the background (not suspended).
    public var backgroundWorkers: Int
    /// The network in use.
    public var network: DeviceConditions.Network
    /// Whether it is plugged in.
    public var charging: Bool
    /// Whether Low Power Mode is on.
    public var lowPowerMode: Bool

    /// Creates an activity.
    public init(
        screenOn: Bool,
        backgroundWorkers: Int,
        network: DeviceConditions.Network,
        charging: Bool,
        lowPowerMode: Bool
    ) {
        self.screenOn = screenOn
        self.backgroundWorkers = backgroundWorkers
        self.network = network
        self.charging = charging
        self.lowPowerMode = lowPowerMode
    }
}
