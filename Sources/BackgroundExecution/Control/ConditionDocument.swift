public import BackgroundCore

/// One device condition as `bgctl status` shows it: its value and where the value came from.
///
/// An embedded app reads no probe (that is the daemon's job): its conditions are
/// ``EmbeddedSystem/serverDevice`` (source `default`) unless its own code set them through
/// ``EmbeddedSystem/Configuration/device`` or ``EmbeddedSystem/setDevice(_:)`` (source
/// `override`). `bgctl device set` changes the daemon's conditions, not an embedded app's.
public struct ConditionDocument: Codable, Sendable, Hashable {
    /// `power`, `battery`, `low-power`, `network`, `metered`, `idle`, `unlocked`.
    public var name: String
    /// The value as text: `external`, `100%`, `off`, `wifi`, `no`, `yes`.
    public var value: String
    /// `probe`, `default` or `override`.
    public var source: String
    /// The source with its reason, as the text shows it.
    public var detail: String

    /// A condition.
    public init(name: String, value: String, source: String, detail: String) {
        self.name = name
        self.value = value
        self.source = source
        self.detail = detail
    }

    static let defaultDetail =
        "default: a server's device (EmbeddedSystem.serverDevice); an embedded app reads no probe"
    static let appDetail = "override: set by the app (EmbeddedSystem.Configuration.device or setDevice)"

    /// An embedded system's conditions, each `default` when it is the server device's value and
    /// `override` when the app set another.
    public static func embedded(_ device: DeviceConditions) -> [ConditionDocument] {
        let server = EmbeddedSystem.serverDevice
        func entry(_ name: String, _ value: String, _ isDefault: Bool) -> ConditionDocument {
            ConditionDocument(
                name: name,
                value: value,
                source: isDefault ? "default" : "override",
                detail: isDefault ? defaultDetail : appDetail
            )
        }
        return [
            entry(
                "power",
                device.powerSource == .battery ? "battery" : "external",
                device.powerSource == server.powerSource
            ),
            entry(
                "battery",
                "\(Int((device.batteryLevel * 100).rounded()))%",
                device.batteryLevel == server.batteryLevel
            ),
            entry("low-power", device.lowPowerMode ? "on" : "off", device.lowPowerMode == server.lowPowerMode),
            entry("network", device.network.rawValue, device.network == server.network),
            entry("metered", device.network == .cellular ? "yes" : "no", device.network == server.network),
            entry("idle", device.isIdle ? "yes" : "no", device.isIdle == server.isIdle),
            entry(
                "unlocked",
                device.unlockedSinceBoot ? "yes" : "no",
                device.unlockedSinceBoot == server.unlockedSinceBoot
            ),
        ]
    }

    /// `power: external (default: …)`.
    public var line: String { "\(name): \(value) (\(detail))" }
}
