/// One entry of an app's `UIBackgroundModes`: a kind of work the app may do in the background.
///
/// The known modes are static members. Any other string is kept as it was written, because
/// iOS ignores modes it does not know and tools should be able to point them out:
///
/// ```swift
/// let modes: Set<BackgroundMode> = [.fetch, .processing, BackgroundMode(rawValue: "teleport")]
/// modes.filter { !$0.isKnown }   // [teleport]
/// ```
public struct BackgroundMode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The string as written in `UIBackgroundModes`, for example `remote-notification`.
    public let rawValue: String

    /// Creates a mode from its `UIBackgroundModes` string; unknown strings are kept as they are.
    ///
    /// ```swift
    /// BackgroundMode(rawValue: "fetch") == .fetch   // true
    /// ```
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `fetch`: needed to submit `BGAppRefreshTaskRequest`s (and for legacy background fetch).
    public static let fetch = BackgroundMode(rawValue: "fetch")
    /// `processing`: needed to submit `BGProcessingTaskRequest`s.
    public static let processing = BackgroundMode(rawValue: "processing")
    /// `audio`: plays audible content or records in the background.
    public static let audio = BackgroundMode(rawValue: "audio")
    /// `location`: receives location updates in the background.
    public static let location = BackgroundMode(rawValue: "location")
    /// `voip`: provides Voice-over-IP services.
    public static let voip = BackgroundMode(rawValue: "voip")
    /// `remote-notification`: is woken by silent push notifications.
    public static let remoteNotification = BackgroundMode(rawValue: "remote-notification")
    /// `external-accessory`: talks to accessories through the External Accessory framework.
    public static let externalAccessory = BackgroundMode(rawValue: "external-accessory")
    /// `bluetooth-central`: talks to Bluetooth LE accessories as a central.
    public static let bluetoothCentral = BackgroundMode(rawValue: "bluetooth-central")
    /// `bluetooth-peripheral`: shares data over Bluetooth LE as a peripheral.
    public static let bluetoothPeripheral = BackgroundMode(rawValue: "bluetooth-peripheral")
    /// `newsstand-content`: downloads Newsstand content (deprecated by Apple).
    public static let newsstandContent = BackgroundMode(rawValue: "newsstand-content")
    /// `nearby-interaction`: keeps Nearby Interaction sessions running.
    public static let nearbyInteraction = BackgroundMode(rawValue: "nearby-interaction")
    /// `push-to-talk`: runs push-to-talk audio sessions.
    public static let pushToTalk = BackgroundMode(rawValue: "push-to-talk")

    /// Every mode this library knows, in the order of the static members above.
    ///
    /// ```swift
    /// BackgroundMode.known.contains(.audio)   // true
    /// ```
    public static let known: [BackgroundMode] = [
        .fetch, .processing, .audio, .location, .voip, .remoteNotification, .externalAccessory,
        .bluetoothCentral, .bluetoothPeripheral, .newsstandContent, .nearbyInteraction, .pushToTalk,
    ]

    /// Whether this is one of the ``known`` modes; iOS ignores the others.
    ///
    /// ```swift
    /// BackgroundMode(rawValue: "Fetch").isKnown   // false: modes are case-sensitive
    /// ```
    public var isKnown: Bool { Self.known.contains(self) }

    /// The raw string, for example `remote-notification`.
    public var description: String { rawValue }
}
