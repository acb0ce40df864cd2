import ArgumentParser
import BackgroundExecution
import BackgroundStore
import CommandOutput
import Foundation

/// The device `bgctl why --store` assumes, from flags.
struct DeviceOptions: ParsableArguments {
    @Option(help: "Power source: battery or external.")
    var power: String = "external"

    @Option(help: "Battery level, 0 to 1.")
    var batteryLevel: Double = 1

    @Option(help: "Network: none, wifi or cellular.")
    var network: String = "wifi"

    @Option(help: "Whether the device is idle (nobody using it): true or false.")
    var idle: Bool = true

    @Flag(help: "Low Power Mode is on.")
    var lowPowerMode = false

    var conditions: DeviceConditions {
        DeviceConditions(
            powerSource: power == "battery" ? .battery : .externalPower,
            batteryLevel: batteryLevel,
            lowPowerMode: lowPowerMode,
            network: DeviceConditions.Network(rawValue: network) ?? .wifi,
            isIdle: idle,
            unlockedSinceBoot: true
        )
    }
}

/// Answers `bgctl why` from an app's store while the app is not running: the store is opened
/// read-only (nothing is created or written), its state is restored into a fresh system at the
/// present wall-clock time without dispatching anything, and the system explains. A request
/// that would run now is explained as such, not launched away.
enum OfflineExplainer {
    static func explain(
        _ command: DebugCommand,
        app: AppID,
        store path: String,
        followsSymbolicLinks: Bool = false,
        device: DeviceConditions
    ) throws
        -> String
    {
        let clock = WallClock(unixSecondsAtOrigin: Date().timeIntervalSince1970)  // now is T+0
        let apps: [PersistedApp]
        do {
            apps = try BackgroundStore.openForReading(path: path, followsSymbolicLinks: followsSymbolicLinks)
                .load(clock: clock)
        } catch {
            throw CommandFailure(store: error)
        }
        guard let saved = apps.first(where: { $0.app == app }) else {
            return "error: the store at \(path) has nothing for \(app)\n"
        }
        var system = BackgroundSystem(policy: .iOS, device: device)
        _ = system.restoreForInspection(saved, at: .zero)
        let identifiers = command.identifier.map { [$0] } ?? system.pendingRequests(of: app).map(\.identifier)
        guard !identifiers.isEmpty else { return "no pending task requests\n" }
        let format: (Instant) -> String = {
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: clock.unixSeconds(of: $0)))
        }
        return identifiers.map { identifier in
            guard let why = system.eligibility(of: app, identifier: identifier, at: .zero) else {
                return "\(identifier): no pending task request with this identifier\n"
            }
            return why.renderText(formatInstant: format)
        }.joined()
    }
}
