import BackgroundCore
import BackgroundExecution
import Foundation
import Testing

/// `bgctl status` against an embedded app names each device condition's source: `default` (a
/// server's device: an embedded app reads no probe) or `override` (set by the app's own code).
@Suite("Control channel: device conditions with their sources")
@MainActor
struct EmbeddedConditionsTests {
    @Test("a server's device reads as default; what the app sets reads as override, in text and JSON")
    func sources() throws {
        let h = SchedulerHarness()
        let status = h.system.run(DebugCommand(action: .status, json: true))
        #expect(status.text.contains("  power: external (default: a server's device (EmbeddedSystem.serverDevice)"))
        let document = try JSONDecoder().decode(StatusDocument.self, from: Data(try #require(status.document).utf8))
        let conditions = try #require(document.device)
        #expect(conditions.map(\.name) == ["power", "battery", "low-power", "network", "metered", "idle", "unlocked"])
        #expect(conditions.allSatisfy { $0.source == "default" })

        var device = EmbeddedSystem.serverDevice
        device.powerSource = .battery
        device.batteryLevel = 0.15
        h.system.setDevice(device)
        let after = h.system.run(DebugCommand(action: .status, json: true))
        #expect(after.text.contains("  power: battery (override: set by the app"))
        #expect(after.text.contains("  battery: 15% (override: set by the app"))
        #expect(after.text.contains("  network: wifi (default: "))
        let changed = try JSONDecoder().decode(StatusDocument.self, from: Data(try #require(after.document).utf8))
        #expect(changed.device?.filter { $0.source == "override" }.map(\.name) == ["power", "battery"])
    }
}
