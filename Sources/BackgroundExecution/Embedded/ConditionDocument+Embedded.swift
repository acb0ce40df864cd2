public import BackgroundControl
public import BackgroundCore

extension ConditionDocument {
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
}
