/// One background mode an app is using now: playing audio, tracking location, on a call,
/// talking to an accessory.
///
/// iOS keeps an app that declares such a mode in `UIBackgroundModes` running in the background
/// for as long as it does that one thing (Apple, *About the background execution sequence*;
/// reference §1): an active `AVAudioSession` that plays, `CLLocationManager.startUpdatingLocation()`
/// with background updates allowed, a CallKit call, an External Accessory or Core Bluetooth
/// session, a Push to Talk channel. While the app holds one, it is not suspended and its
/// background budget does not tick; when the last one ends, it is any background app again.
///
/// ```swift
/// var system = BackgroundSystem(policy: .iOS)
/// // ... install a manifest with backgroundModes: [.audio], launch, go to the background
/// let reply = try system.handle(.beginModeActivity(app, .audio), at: now, into: &effects)
/// // reply == .modeHeld(.audio); system.modeActivities(of: app) == [ModeActivity(mode: .audio, since: now)]
/// ```
public struct ModeActivity: Sendable, Hashable, Codable {
    /// The mode, one of ``BackgroundMode/activityModes``.
    public let mode: BackgroundMode
    /// When the app began it.
    public let since: Instant

    /// Creates a record of a held mode.
    public init(mode: BackgroundMode, since: Instant) {
        self.mode = mode
        self.since = since
    }

    /// How long the app has held it at `now`.
    public func heldFor(at now: Instant) -> Duration { max(.zero, now - since) }

    /// The sentence `bgctl status` and `bgctl why` print for the mode that keeps an app awake:
    /// `kept running in the background by 'audio' for 12m 5s`.
    public func keepsAwakeText(at now: Instant) -> String {
        "kept running in the background by '\(mode)' for \(DurationText.format(heldFor(at: now)))"
    }
}

extension BackgroundMode {
    /// The modes that are activities an app holds while it does one thing, in a fixed order:
    /// `audio`, `location`, `voip`, `external-accessory`, `bluetooth-central`,
    /// `bluetooth-peripheral`, `push-to-talk`. The other modes (`fetch`, `processing`,
    /// `remote-notification`, ...) let the system wake the app; they are never held.
    ///
    /// ```swift
    /// BackgroundMode.activityModes.contains(.voip)    // true
    /// BackgroundMode.activityModes.contains(.fetch)   // false
    /// ```
    public static let activityModes: [BackgroundMode] = [
        .audio, .location, .voip, .externalAccessory, .bluetoothCentral, .bluetoothPeripheral, .pushToTalk,
    ]

    /// Whether an app can hold this mode as an activity (``activityModes``).
    public var isActivity: Bool { Self.activityModes.contains(self) }
}
