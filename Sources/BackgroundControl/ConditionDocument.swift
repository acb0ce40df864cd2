import BackgroundCore

/// One device condition as `bgctl status` shows it: its value and where the value came from.
///
/// An embedded app reads no probe (that is the daemon's job): its conditions are
/// `EmbeddedSystem.serverDevice` (source `default`) unless its own code set them through
/// `EmbeddedSystem.Configuration.device` or `EmbeddedSystem.setDevice(_:)` (source `override`);
/// `ConditionDocument.embedded(_:)`, beside the embedded system in BackgroundExecution, makes
/// those. `bgctl device set` changes the daemon's conditions, not an embedded app's.
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

    /// `power: external (default: …)`.
    public var line: String { "\(name): \(value) (\(detail))" }
}
